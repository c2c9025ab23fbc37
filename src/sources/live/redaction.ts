/**
 * Redaction applied to every object before it is written to a recording (on by default;
 * `kexp record --no-redact` turns it off). Removes values that may carry credentials while
 * keeping everything the controller model reads (metadata used for ownership, labels,
 * phases, conditions, timestamps):
 * - container/initContainer/ephemeralContainer `env[].value` → "REDACTED" (valueFrom kept: it is a reference);
 * - Secret `data` / `stringData` values → "REDACTED";
 * - annotations whose name looks like a credential (token, password, secret, key, credential, auth)
 *   and `kubectl.kubernetes.io/last-applied-configuration` (a full copy of the object, env included) → "REDACTED";
 * - a Pod's projected service-account token is a reference, not a value; nothing to do.
 * Returns a new object; the input is not modified.
 */
const SENSITIVE_ANNOTATION = /(token|passw|secret|credential|api[-_.]?key|private[-_.]?key|auth)/i;
export const REDACTED = 'REDACTED';

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function redactContainers(list: unknown): unknown {
  if (!Array.isArray(list)) return list;
  return list.map((c) => {
    if (!isObj(c) || !Array.isArray(c.env)) return c;
    return { ...c, env: c.env.map((e) => (isObj(e) && 'value' in e ? { ...e, value: REDACTED } : e)) };
  });
}

function redactPodSpec(spec: unknown): unknown {
  if (!isObj(spec)) return spec;
  return {
    ...spec,
    containers: redactContainers(spec.containers),
    ...(spec.initContainers ? { initContainers: redactContainers(spec.initContainers) } : {}),
    ...(spec.ephemeralContainers ? { ephemeralContainers: redactContainers(spec.ephemeralContainers) } : {}),
  };
}

function redactAnnotations(meta: unknown): unknown {
  if (!isObj(meta) || !isObj(meta.annotations)) return meta;
  const a: Obj = {};
  for (const [k, v] of Object.entries(meta.annotations)) {
    a[k] = k === 'kubectl.kubernetes.io/last-applied-configuration' || SENSITIVE_ANNOTATION.test(k) ? REDACTED : v;
  }
  return { ...meta, annotations: a };
}

export function redactObject(obj: Obj): Obj {
  const out: Obj = { ...obj, metadata: redactAnnotations(obj.metadata) };
  if (obj.kind === 'Secret') {
    for (const f of ['data', 'stringData']) {
      if (isObj(obj[f])) out[f] = Object.fromEntries(Object.keys(obj[f] as Obj).map((k) => [k, REDACTED]));
    }
  }
  if (obj.kind === 'Pod') out.spec = redactPodSpec(obj.spec);
  if ((obj.kind === 'ReplicaSet' || obj.kind === 'Deployment') && isObj(obj.spec) && isObj(obj.spec.template)) {
    const tpl = obj.spec.template as Obj;
    out.spec = { ...obj.spec, template: { ...tpl, metadata: redactAnnotations(tpl.metadata), spec: redactPodSpec(tpl.spec) } };
  }
  return out;
}
