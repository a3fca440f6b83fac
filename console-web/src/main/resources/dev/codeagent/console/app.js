// The console's shell: sign-in, the navigation, and which page the address's #fragment names.
import { api, key, signIn, signOut, ApiError } from './api.js';
import { el, show, problem } from './dom.js';
import { runsPage, runPage } from './runs.js';
import { playgroundPage } from './playground.js';
import { sessionsPage } from './sessions.js';
import { evaluationsPage, evaluationPage } from './evaluations.js';

const main = document.getElementById('main');
const nav = document.getElementById('nav');
const signOutButton = document.getElementById('sign-out');
let leaving = null;

function signInPage(message) {
  nav.hidden = true;
  signOutButton.hidden = true;
  const input = el('input', { id: 'api-key', type: 'password', name: 'api-key', autocomplete: 'off', required: true,
    spellcheck: 'false' });
  const status = el('div', { id: 'sign-in-status', 'aria-live': 'polite' }, message ? problem(message) : null);
  const form = el('form', { class: 'sign-in', 'aria-labelledby': 'sign-in-title' },
    el('h1', { id: 'sign-in-title' }, 'Sign in'),
    el('p', {}, 'The API key is kept in this tab only (session storage) and sent only to this server.'),
    el('label', { for: 'api-key' }, 'API key'), input,
    el('button', { type: 'submit', id: 'sign-in-button' }, 'Sign in'), status);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    signIn(input.value.trim());
    try {
      // any call the key may make tells whether it is valid; /v1/runs is what the first page shows
      await api('/v1/runs?limit=1');
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) {
        signOut();
        show(status, problem('That key is not valid here.'));
        return;
      }
      // 403: a key limited to other endpoint groups is still a key; the pages it may not use say so themselves
      if (!(err instanceof ApiError && err.status === 403)) {
        signOut();
        show(status, problem(err));
        return;
      }
    }
    if (location.hash === '' || location.hash === '#/' || location.hash.startsWith('#/sign-in')) {
      location.hash = '#/runs';
    }
    route();
  });
  show(main, form);
  input.focus();
}

signOutButton.addEventListener('click', () => {
  signOut();
  location.hash = '#/sign-in';
});

async function route() {
  if (leaving) {
    leaving();
    leaving = null;
  }
  if (!key()) {
    signInPage();
    return;
  }
  nav.hidden = false;
  signOutButton.hidden = false;
  const hash = location.hash.replace(/^#/, '') || '/runs';
  const [path, query] = hash.split('?');
  const params = new URLSearchParams(query || '');
  for (const a of nav.querySelectorAll('a')) {
    if (path.startsWith(a.getAttribute('href').slice(1))) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  const parts = path.split('/').filter(Boolean);
  let page;
  try {
    if (parts[0] === 'runs' && parts.length === 2) {
      page = runPage(decodeURIComponent(parts[1]));
    } else if (parts[0] === 'evaluations' && parts.length === 2) {
      page = evaluationPage(decodeURIComponent(parts[1]));
    } else if (parts[0] === 'evaluations') {
      page = evaluationsPage();
    } else if (parts[0] === 'playground') {
      page = playgroundPage();
    } else if (parts[0] === 'sessions') {
      page = sessionsPage();
    } else {
      page = runsPage(params);
    }
    show(main, page.node);
    leaving = page.leave || null;
    main.focus({ preventScroll: true });
    if (page.ready) await page.ready;
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) {
      signOut();
      signInPage('The key was refused; sign in again.');
      return;
    }
    main.append(problem(err));
  }
}

window.addEventListener('hashchange', route);
route();
