// The calls the console makes: trainyard's APIs on the same origin, with the signed-in token
// (sessionStorage, sent as `Authorization: Bearer`). Errors come back as `ApiError` with the
// server's google.rpc message and field violations, so pages can show them as they are.

const TOKEN_KEY = "trainyard.token";

export function token(): string | null {
  return sessionStorage.getItem(TOKEN_KEY);
}

export function setToken(value: string | null): void {
  if (value) sessionStorage.setItem(TOKEN_KEY, value);
  else sessionStorage.removeItem(TOKEN_KEY);
  callerCache = null;
}

export interface FieldViolation {
  field: string;
  description: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly violations: FieldViolation[] = [],
  ) {
    super(message);
  }
}

// Called on a 401, so the app can ask for a token.
export let onUnauthenticated: () => void = () => {};
export function setOnUnauthenticated(callback: () => void): void {
  onUnauthenticated = callback;
}

function headers(json: boolean): Headers {
  const result = new Headers();
  const t = token();
  if (t) result.set("Authorization", "Bearer " + t);
  if (json) result.set("Content-Type", "application/json");
  return result;
}

async function errorOf(response: Response): Promise<ApiError> {
  let message = response.status + " " + response.statusText;
  const violations: FieldViolation[] = [];
  try {
    const body = await response.json();
    const error = body.error ?? body;
    if (typeof error.message === "string") message = error.message;
    for (const detail of error.details ?? []) {
      for (const v of detail.fieldViolations ?? []) violations.push(v);
    }
  } catch {
    // not JSON: keep the status line
  }
  if (response.status === 401) onUnauthenticated();
  return new ApiError(response.status, message, violations);
}

export async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(path, {
    method,
    headers: headers(body !== undefined),
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw await errorOf(response);
  const text = await response.text();
  return (text ? JSON.parse(text) : {}) as T;
}

export async function download(path: string): Promise<Blob> {
  const response = await fetch(path, { headers: headers(false) });
  if (!response.ok) throw await errorOf(response);
  return response.blob();
}

export const enc = encodeURIComponent;

export interface Caller {
  name: string;
  grants: { role: string; project: string; permissions?: string[] }[];
  allProjects: boolean;
  projects: string[]; // what the project picker offers, sorted
}

let callerCache: Promise<Caller> | null = null;

// Who the token stands for and the projects it may see (trainyard v1 caller), asked once per
// token.
export function caller(): Promise<Caller> {
  if (!callerCache) {
    callerCache = call<Caller>("GET", "/trainyard/v1/caller");
    callerCache.catch(() => (callerCache = null));
  }
  return callerCache;
}

// Whether the caller may do what `permission` allows in `project`: a server that checks no
// tokens allows everything; otherwise a grant of that project (or of a role that spans projects,
// whose grant names none) must hold it.
export async function may(project: string, permission: string): Promise<boolean> {
  const who = await caller();
  if (who.allProjects && who.grants.length === 0) return true;
  return who.grants.some(
    (g) =>
      (g.project === project || g.project === "") && (g.permissions ?? []).includes(permission),
  );
}

export function forgetCaller(): void {
  callerCache = null;
}
