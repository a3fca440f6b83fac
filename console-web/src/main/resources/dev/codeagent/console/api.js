// The console's one way to the API: same-origin requests only, the key from session storage in the Authorization
// header (the API authenticates by header only), problem documents turned into errors that say what the server said.

const KEY = 'codeagent.apiKey';

export function key() {
  return sessionStorage.getItem(KEY);
}

export function signIn(value) {
  sessionStorage.setItem(KEY, value);
}

export function signOut() {
  sessionStorage.removeItem(KEY);
}

/** An error the API answered: its status and the problem document's detail. */
export class ApiError extends Error {
  constructor(status, problem) {
    // a field error names the field and what it must be: the person fixes what they typed
    const fields = problem && Array.isArray(problem.errors)
      ? problem.errors.map((e) => e.field + ': ' + e.message).join('; ') : '';
    super(fields || (problem && (problem.detail || problem.title)) || 'HTTP ' + status);
    this.status = status;
    this.problem = problem;
  }
}

// The key goes to this origin's API and nowhere else: a path that would resolve elsewhere is refused before sending.
function sameOrigin(path) {
  const url = new URL(path, location.origin);
  if (url.origin !== location.origin || !url.pathname.startsWith('/v1/')) {
    throw new Error('refusing to send the API key to ' + url.origin + url.pathname);
  }
  return url;
}

function headers(extra) {
  const h = new Headers(extra || {});
  const k = key();
  if (k) {
    h.set('Authorization', 'Bearer ' + k);
  }
  return h;
}

async function problemOf(response) {
  try {
    return await response.json();
  } catch (e) {
    return null;
  }
}

/** A JSON request; resolves to {status, body, headers}; rejects with ApiError on a 4xx/5xx. */
export async function api(path, { method = 'GET', body, signal } = {}) {
  const init = { method, headers: headers(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    credentials: 'omit', mode: 'same-origin', cache: 'no-store', redirect: 'error', signal };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
  }
  const response = await fetch(sameOrigin(path), init);
  if (!response.ok) {
    throw new ApiError(response.status, await problemOf(response));
  }
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
}

/** A download of a response body as a file (the key stays in the header: no key in a URL). */
export async function download(path, filename) {
  const response = await fetch(sameOrigin(path), { headers: headers(), credentials: 'omit', mode: 'same-origin',
    cache: 'no-store', redirect: 'error' });
  if (!response.ok) {
    throw new ApiError(response.status, await problemOf(response));
  }
  const url = URL.createObjectURL(await response.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

/**
 * Server-sent events read with fetch (EventSource cannot send the Authorization header): calls onEvent(name, data,
 * id) for each event until the stream ends or the signal aborts; resumes from the last id when the connection drops.
 */
export async function events(path, onEvent, signal) {
  let lastId = null;
  for (let tries = 0; tries < 30 && !signal.aborted; tries++) {
    const h = headers({ Accept: 'text/event-stream' });
    if (lastId !== null) {
      h.set('Last-Event-ID', lastId);
    }
    let response;
    try {
      response = await fetch(sameOrigin(path), { headers: h, credentials: 'omit', mode: 'same-origin',
        cache: 'no-store', redirect: 'error', signal });
    } catch (e) {
      if (signal.aborted) {
        return;
      }
      await new Promise((r) => setTimeout(r, 2000));
      continue;
    }
    if (response.status === 204) {
      return;
    }
    if (!response.ok) {
      throw new ApiError(response.status, await problemOf(response));
    }
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    let ended = false;
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) {
          ended = true;
          break;
        }
        buffer += value.replace(/\r\n?/g, '\n');
        let cut;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          let name = 'message', data = [], id = null;
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) continue;
            const colon = line.indexOf(':');
            const field = colon < 0 ? line : line.slice(0, colon);
            const v = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
            if (field === 'event') name = v;
            else if (field === 'data') data.push(v);
            else if (field === 'id') id = v;
          }
          if (id !== null) lastId = id;
          if (data.length) onEvent(name, JSON.parse(data.join('\n')), id);
        }
      }
    } catch (e) {
      if (signal.aborted) {
        return;
      }
    }
    if (ended) {
      // the server ends a stream after the run's last event
      return;
    }
  }
}
