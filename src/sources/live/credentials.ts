/**
 * Keeping the caller's credentials out of everything kexp prints or writes:
 *
 * - `displayServer` is the cluster server URL without its userinfo (`https://admin:PASS@host`
 *   → `https://host`): the form every message, table, HTML page and JSON result shows; the
 *   KubeConfig keeps the real URL for requests.
 * - `callerSecrets` collects the credentials a request carries once client-node has applied
 *   them (the bearer token, the basic-auth password and its base64 form, a password in the URL).
 * - `scrubServerText` is the one function through which text from a server (an error body's
 *   `message`, a header value) is echoed: it removes those credentials — a proxy may fill an
 *   error message by echoing the request's Authorization header — plus any `Bearer …` /
 *   `Basic …` value and URL userinfo, and makes the text one bounded line.
 */
import type https from 'node:https';

export const REDACTED_MARK = '[REDACTED]';

/** Longest server text echoed in a message; longer text is cut (an HTML error page is not a message). */
const MAX_ECHO = 500;

/** `server` without userinfo; the scheme, host, port and path are kept exactly as written. */
export function displayServer(server: string): string {
  const scheme = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.exec(server);
  const start = scheme ? scheme[0].length : 0;
  const end = server.slice(start).search(/[/?#]/);
  const authority = end === -1 ? server.slice(start) : server.slice(start, start + end);
  const at = authority.lastIndexOf('@');
  if (at === -1) return server;
  return server.slice(0, start) + authority.slice(at + 1) + (end === -1 ? '' : server.slice(start + end));
}

function header(opts: https.RequestOptions, name: string): string | undefined {
  const h = opts.headers as Record<string, unknown> | undefined;
  if (!h) return undefined;
  for (const [k, v] of Object.entries(h)) {
    if (k.toLowerCase() === name && (typeof v === 'string' || typeof v === 'number')) return String(v);
  }
  return undefined;
}

function decodeOrSelf(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** The secrets a request built with `opts` to `url` carries (never empty strings). */
export function callerSecrets(opts: https.RequestOptions, url?: URL): string[] {
  const out = new Set<string>();
  const add = (s: string | undefined) => {
    if (s) out.add(s);
  };
  const authz = header(opts, 'authorization');
  if (authz) {
    const m = /^\s*(\S+)\s+(.+?)\s*$/.exec(authz);
    add(m ? m[2] : authz.trim());
    if (m && m[1].toLowerCase() === 'basic') {
      const decoded = Buffer.from(m[2], 'base64').toString('utf8');
      add(decoded.includes(':') ? decoded.slice(decoded.indexOf(':') + 1) : undefined);
    }
  }
  if (typeof opts.auth === 'string' && opts.auth.includes(':')) {
    add(opts.auth.slice(opts.auth.indexOf(':') + 1));
    add(Buffer.from(opts.auth).toString('base64'));
  }
  if (url?.password) {
    add(url.password);
    add(decodeOrSelf(url.password));
    add(Buffer.from(`${decodeOrSelf(url.username)}:${decodeOrSelf(url.password)}`).toString('base64'));
  }
  return [...out];
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * `text` from a server, safe to echo: each of `secrets` (longest first) and any
 * `Bearer …`/`Basic …` credential or URL userinfo replaced by [REDACTED], line breaks
 * folded into spaces, and cut to a bounded length.
 */
export function scrubServerText(text: string, secrets: readonly string[] = []): string {
  let s = text;
  for (const secret of [...secrets].filter(Boolean).sort((a, b) => b.length - a.length)) {
    s = s.replace(new RegExp(escapeRegExp(secret), 'g'), REDACTED_MARK);
  }
  s = s
    .replace(/\b(Bearer|Basic)(\s+)(?!\[REDACTED\])[^\s"',;]+/gi, `$1$2${REDACTED_MARK}`)
    .replace(/(\/\/)[^\s/@"']*@/g, `$1${REDACTED_MARK}@`)
    // Starts only where no blank precedes (else a long blank run is rescanned from each position).
    .replace(/(?<![^\S\r\n])[^\S\r\n]*[\r\n]+\s*/g, ' ')
    .trim();
  return s.length > MAX_ECHO ? `${s.slice(0, MAX_ECHO)}…` : s;
}
