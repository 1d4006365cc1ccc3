/** Errors of processor-gateway's use cases; the HTTP adapter maps them to problems in one place. */
export class GatewayError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'GatewayError';
  }
}

export class NotFound extends GatewayError {
  constructor(what: string) {
    super('NOT_FOUND', `${what} not found`);
    this.name = 'NotFound';
  }
}

/** The request is valid but conflicts with what exists (a key reused for another charge). */
export class Conflict extends GatewayError {
  constructor(code: string, message: string) {
    super(code, message);
    this.name = 'Conflict';
  }
}

/** The merchant or the request does not allow this (processor not enabled, currency mismatch). */
export class NotAllowed extends GatewayError {
  constructor(code: string, message: string) {
    super(code, message);
    this.name = 'NotAllowed';
  }
}

/** The processor refused to open a form or was unreachable: nothing was charged, the person may retry. */
export class ProcessorRefused extends GatewayError {
  constructor(
    readonly declineCode: string,
    message: string,
  ) {
    super('PROCESSOR_REFUSED', message);
    this.name = 'ProcessorRefused';
  }
}
