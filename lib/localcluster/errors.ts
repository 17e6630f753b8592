/** Errors of the local control plane, each saying what is needed in plain words. */
export class LocalClusterError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'LocalClusterError';
  }
}

/** No usable Go toolchain: the binaries cannot be built. */
export class GoToolchainMissingError extends LocalClusterError {
  constructor(detail: string, options?: { cause?: unknown }) {
    super(
      `Building the local Kubernetes binaries needs a Go toolchain (go 1.26 or newer on PATH, with access to a Go module proxy): ${detail}`,
      options,
    );
    this.name = 'GoToolchainMissingError';
  }
}
