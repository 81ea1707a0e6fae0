// Drover's web UI: one page shell, routed on location.pathname (Nomad's
// URLs, routes.js), each page a module under pages/ loaded when first
// shown. Pages read the /v1 API and re-render when the event stream
// reports a change to what they show. No framework, no build step.
//
// A page module's default export takes the route's params and the query
// string and answers an object:
//   render()    async, answers the HTML of the page (or of page.target)
//   topics      event-stream topics that make it re-render
//   wantsEvent  optional filter on those events
//   mount()     optional: draws a fixed frame before the first render
//   after(el)   optional: wires what HTML cannot (charts, streams)
//   actions     {name: async (data, el) => message}: run by clicking an
//               element with data-action=name (a button, or a form's
//               submit); data-confirm asks a second click first. The
//               page re-renders after, unless the message is null.
//   cleanup()   optional: stops the page's streams

import { api, state, token, setToken, authHeaders, streamController, readLines } from './lib/api.js';
import { caps } from './lib/acl.js';
import { esc } from './lib/ui.js';
import { match } from './routes.js';

const main = document.getElementById('main');
const flash = document.getElementById('flash');
let current = null;
let refreshTimer = null;
let seq = 0;

export const ctx = {
  caps: () => caps(token()),
  navigate,
  refresh: () => refresh(),
  say,
};

// say shows the outcome of an action above the page until the next navigation.
function say(msg, kind = 'ok') {
  flash.innerHTML = msg ? `<div class="${kind === 'ok' ? 'okbox' : 'error'}" role="${kind === 'ok' ? 'status' : 'alert'}">${esc(msg)}</div>` : '';
}

async function route() {
  if (current && current.cleanup) current.cleanup();
  current = null;
  const my = ++seq;
  const path = location.pathname;
  const m = match(path);
  if (m && m.redirect) { history.replaceState(null, '', m.redirect); return route(); }
  markNav(path);
  let page;
  if (!m) {
    page = notFound(`No page at ${path}.`);
  } else {
    try {
      const mod = await import(`./pages/${m.page}.js`);
      page = mod.default(m.params, new URLSearchParams(location.search), ctx);
    } catch (e) {
      page = { render: async () => { throw e; } };
    }
  }
  if (my !== seq) return;
  current = page;
  document.title = `${page.title || 'Drover'} · Drover`;
  if (page.mount) page.mount(main);
  return refresh();
}

// notFound is the 404 page: it says what was not found.
export function notFound(what) {
  return {
    title: 'Not found',
    render: async () => `<h1>Not found</h1><p class="notfound">${esc(what)}</p><p><a href="/ui/jobs">Jobs</a> · <a href="/ui/clients">Clients</a> · <a href="/ui/evaluations">Evaluations</a></p>`,
  };
}

function markNav(path) {
  for (const a of document.querySelectorAll('header nav a')) {
    const on = path.startsWith(`/ui/${a.dataset.section}`);
    a.classList.toggle('active', on);
    if (on) a.setAttribute('aria-current', 'page'); else a.removeAttribute('aria-current');
  }
}

function navigate(href) {
  history.pushState(null, '', href);
  say('');
  route();
}

document.addEventListener('click', ev => {
  const a = ev.target.closest('a');
  if (!a || ev.ctrlKey || ev.metaKey || ev.shiftKey || ev.button !== 0) return;
  const href = a.getAttribute('href') || (a.href && a.href.baseVal) || '';
  if (!href.startsWith('/ui/') || href.startsWith('/ui/assets/')) return;
  ev.preventDefault();
  navigate(href);
});
window.addEventListener('popstate', () => { say(''); route(); });

// Actions: a click on [data-action] (a second one when it asks to confirm)
// or a submitted form[data-action] runs the page's handler; its answer or
// its error shows above the page, which then re-renders.
document.addEventListener('click', ev => {
  const el = ev.target.closest('button[data-action]');
  if (!el || el.disabled || el.type === 'submit') return;
  ev.preventDefault();
  if (el.dataset.confirm && !el.classList.contains('armed')) {
    disarmAll();
    el.dataset.label = el.textContent;
    el.textContent = el.dataset.confirm;
    el.classList.add('armed');
    el.setAttribute('aria-pressed', 'true');
    return;
  }
  el.classList.remove('armed');
  runAction(el.dataset.action, { ...el.dataset }, el);
});
document.addEventListener('click', ev => {
  if (!ev.target.closest('button.armed')) disarmAll();
}, true);
document.addEventListener('keydown', ev => { if (ev.key === 'Escape') disarmAll(); });
function disarmAll() {
  for (const b of document.querySelectorAll('button.armed')) {
    b.classList.remove('armed');
    b.removeAttribute('aria-pressed');
    b.textContent = b.dataset.label;
  }
}

document.addEventListener('submit', ev => {
  const form = ev.target.closest('form[data-action]');
  if (!form) return;
  ev.preventDefault();
  const data = {};
  for (const el of form.elements) {
    if (!el.name) continue;
    data[el.name] = el.type === 'checkbox' ? el.checked : el.value;
  }
  runAction(form.dataset.action, data, form);
});

async function runAction(name, data, el) {
  const page = current;
  const fn = page && page.actions && page.actions[name];
  if (!fn) { say(`no action ${name} on this page`, 'error'); return; }
  const controls = el.querySelectorAll ? [el, ...el.querySelectorAll('button')] : [el];
  controls.forEach(b => { b.disabled = true; });
  if (document.activeElement && el.contains(document.activeElement)) document.activeElement.blur();
  try {
    const msg = await fn(data, el);
    if (msg) say(msg);
    // null: the handler drew its result itself (a plan, a terminal).
    if (page !== current || msg === null) return;
    await refresh();
  } catch (e) {
    say(e.message, 'error');
  } finally {
    controls.forEach(b => { if (b.isConnected) b.disabled = false; });
  }
}

async function refresh() {
  const page = current;
  if (!page) return;
  if (busy(page)) { scheduleRefresh(1000); return; }
  let html;
  try {
    html = await page.render();
  } catch (e) {
    html = errorHTML(e);
  }
  if (page !== current) return;
  if (busy(page)) { scheduleRefresh(1000); return; } // armed or typed in while rendering
  const target = page.target ? document.getElementById(page.target) : main;
  if (!target) return;
  target.innerHTML = html;
  if (!page.rendered && !performance.getEntriesByName('drover:first-render').length) performance.mark('drover:first-render');
  page.rendered = true;
  if (page.after) page.after(target);
}

// busy: do not redraw under the operator's hands. A focused field keeps
// its text and an armed confirmation its state; the refresh waits.
function busy(page) {
  if (!page.rendered) return false;
  const f = document.activeElement;
  return !!(main.querySelector('button.armed') || (f && main.contains(f) && /^(INPUT|TEXTAREA|SELECT)$/.test(f.tagName)));
}

function errorHTML(e) {
  if (e.status === 403 && !token()) {
    return `<h1>Sign in</h1><div class="error" role="alert">This cluster has ACLs enabled and no token is set, and the anonymous policy does not allow this page.
      Set a token in <a href="/ui/settings/tokens">Settings → Tokens</a>.</div>`;
  }
  if (e.status === 404) return `<h1>Not found</h1><p class="notfound">${esc(e.message)}</p>`;
  return `<div class="error" role="alert">${esc(e.message)}</div>`;
}

function scheduleRefresh(ms = 200) {
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(refresh, ms);
}

// ---- event stream --------------------------------------------------------

function setLive(on) {
  const el = document.getElementById('live');
  el.textContent = on ? 'live' : 'offline';
  el.classList.toggle('on', on);
}

function onEvents(frame) {
  if (!frame.Events || !current) return;
  if (frame.Index > state.maxIndex) state.maxIndex = frame.Index;
  const wants = current.topics || [];
  if (frame.Events.some(e => wants.includes(e.Topic) && (!current.wantsEvent || current.wantsEvent(e)))) {
    scheduleRefresh();
  }
}

let streamCtrl = null;
let streamGen = 0;

// followEvents reads the event stream until restarted (a new token) or
// the page goes; it reconnects after a pause when the agent goes away.
async function followEvents() {
  const gen = ++streamGen;
  while (gen === streamGen) {
    const c = streamController();
    streamCtrl = c;
    try {
      const r = await fetch(`/v1/event/stream?namespace=*&index=${state.maxIndex + 1}`, { headers: authHeaders(), signal: c.signal });
      if (r.ok) {
        setLive(true);
        await readLines(r.body, line => onEvents(JSON.parse(line)));
      } else {
        await r.body.cancel();
      }
    } catch (e) {
      // the agent went away, the token is refused, or a restart: retry below
    }
    c.abort();
    if (gen !== streamGen) return;
    setLive(false);
    await new Promise(res => setTimeout(res, 2000));
  }
}

// restartStream follows the events again, with the token now saved.
export function restartStream() {
  streamGen++;
  if (streamCtrl) streamCtrl.abort();
  setLive(false);
  followEvents();
}
ctx.restartStream = restartStream;
ctx.saveToken = t => { setToken(t); document.getElementById('token').value = t; restartStream(); return refresh(); };

// ---- start ---------------------------------------------------------------

document.getElementById('token').value = token();
document.body.classList.toggle('nowrap', localStorage.getItem('drover.wrapLogs') === 'false');
document.getElementById('token-form').addEventListener('submit', ev => {
  ev.preventDefault();
  ctx.saveToken(document.getElementById('token').value.trim());
});
// exchangeOneTimeToken: a one-time token in the URL (?ott=, from
// `drover ui -authenticate`, as Nomad's UI takes it) is exchanged for the
// token it stands for, which is saved; the URL loses it either way, so a
// reload or a shared link does not carry it. It answers what to say.
async function exchangeOneTimeToken() {
  const u = new URL(location.href);
  const ott = u.searchParams.get('ott');
  if (!ott) return null;
  u.searchParams.delete('ott');
  history.replaceState(history.state, '', u.pathname + u.search + u.hash);
  const r = await fetch('/v1/acl/token/onetime/exchange', {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ OneTimeSecretID: ott }),
  });
  if (!r.ok) return [`Signing in with the one-time token failed: ${r.status} ${(await r.text()).trim()}`, 'error'];
  const t = (await r.json()).Token;
  setToken(t.SecretID);
  document.getElementById('token').value = t.SecretID;
  return [`Signed in with a one-time token as ${t.Name || t.AccessorID}.`, 'ok'];
}

// The stream starts once the first page has loaded, from the index that
// page showed, so it brings only what changed since.
exchangeOneTimeToken()
  .catch(e => [`Signing in with the one-time token failed: ${e.message}`, 'error'])
  .then(msg => route().then(() => { if (msg) say(...msg); }))
  .finally(followEvents);
