/**
 * Import rules for src/, checked in CI by `npm run check:imports` (part of `npm test`).
 *
 * dependency-cruiser rather than a script of our own: it resolves TypeScript's NodeNext
 * imports (`./x.js` → `x.ts`) exactly as tsc does, reports every cycle with its path, and states
 * layer rules (which folder may import which) as data, so a new rule is a few lines here.
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Import cycles hide which module owns a concept; move the shared piece down instead.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'pure-core',
      severity: 'error',
      comment: 'src/model and src/analysis do no I/O and read no clock (design.md "Pure core, thin edges").',
      from: { path: '^src/(model|analysis)/' },
      to: { path: '^(node:)?(fs|fs/promises|net|http|https|http2|child_process|worker_threads|readline|tty|dgram|dns|os)$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'core-not-edges',
      severity: 'error',
      comment: 'The model and the analysis never import sources, pipelines, renderers or commands.',
      from: { path: '^src/(model|analysis|timeline)/' },
      to: { path: '^src/(sources|pipeline|render|commands|cli|serve)/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'pipeline-not-cli',
      severity: 'error',
      comment: 'A pipeline serves the commands, the CLI and the server: it never reaches up into the CLI or the commands.',
      from: { path: '^src/pipeline/' },
      to: { path: '^src/(cli|commands)/' },
    },
    {
      name: 'engine-through-seam',
      severity: 'error',
      comment: 'The replay engine drives any controller kind through the seam in src/model/controller/, never a kind\'s own model.',
      from: { path: '^src/analysis/engine/' },
      to: { path: '^src/model/(replicaset|replicationcontroller|daemonset|job)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs', '.json'] },
    exclude: { path: '^src/render/html-assets/' },
  },
};
