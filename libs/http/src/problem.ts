import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

/** One invalid field: `path` is the dotted JSON path (`signedInUser.email`, `operations.3.updates`). */
export interface FieldError {
  path: string;
  message: string;
}

/**
 * An error that maps to an RFC 9457 problem document. Adapters throw it (or map domain errors to it in
 * one place); the app's error handler renders it.
 */
export class HttpProblem extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: string,
    readonly detail: string,
    readonly errors: FieldError[] = [],
    /** Response headers the problem needs (`Allow` with a 405). */
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
    this.name = 'HttpProblem';
  }
}

const titles: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  code: string;
  detail: string;
  errors: FieldError[];
  requestId: string;
  instance: string;
}

export function problemBody(c: Context, problem: HttpProblem): ProblemBody {
  return {
    type: `about:blank#${problem.code}`,
    title: titles[problem.status] ?? 'Error',
    status: problem.status,
    code: problem.code,
    detail: problem.detail,
    errors: problem.errors,
    requestId: (c.get('requestId' as never) as string | undefined) ?? '',
    instance: c.req.path,
  };
}

export function problemResponse(c: Context, problem: HttpProblem): Response {
  return c.body(JSON.stringify(problemBody(c, problem)), problem.status, {
    ...problem.headers,
    'content-type': 'application/problem+json',
  });
}

export const problems = {
  badRequest: (detail: string, errors: FieldError[] = []) =>
    new HttpProblem(400, 'VALIDATION_ERROR', detail, errors),
  unauthorized: (detail = 'Api-Token header missing or invalid') =>
    new HttpProblem(401, 'UNAUTHORIZED', detail),
  notFound: (detail = 'Not found', code = 'NOT_FOUND') => new HttpProblem(404, code, detail),
  conflict: (code: string, detail: string) => new HttpProblem(409, code, detail),
  tooLarge: (detail: string) => new HttpProblem(413, 'PAYLOAD_TOO_LARGE', detail),
  unprocessable: (code: string, detail: string, errors: FieldError[] = []) =>
    new HttpProblem(422, code, detail, errors),
};
