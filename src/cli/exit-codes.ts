/**
 * kexp's exit codes, so runbooks can branch on them (documented in README.md).
 * When several apply, the first in EXIT_PRECEDENCE wins.
 */
export const EXIT = {
  /** Healthy or converging: nothing gates or leaks. */
  OK: 0,
  /** Unexpected runtime error. */
  ERROR: 1,
  /** Bad flags or arguments (oclif's own parse errors also use 2). */
  USAGE: 2,
  /** The controller is gated on its own writes right now (a round in flight). */
  GATED: 3,
  /** An expectation leak was found (open, or cleared only by the timeout). */
  LEAK: 4,
  /** Creates or deletes are failing (quota, admission, …). */
  FAILING: 5,
  /**
   * Input problems: malformed lines or implausible times (FILE:LINE), trailing non-gzip bytes,
   * binary data, an input that could not be read, or a recording file that cannot be created
   * or written.
   */
  INPUT: 6,
  /**
   * Cannot use the cluster: kubeconfig, reachability, TLS/auth, credential plugins, RBAC, or a
   * response that is not what was asked for (not JSON, wrong kind, too large, too slow).
   */
  CLUSTER: 7,
  /** The named ReplicaSet (or Deployment) does not exist. */
  NOT_FOUND: 8,
  /** Interrupted by one Ctrl-C or SIGTERM. */
  INTERRUPTED: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];
