"""The app's pages: one shell (the report pages' style, a menu of the three screens, and
the small script every screen uses to ask the server) around each screen's form.

Everything a page needs is in the page: no CDN, no font or script from elsewhere, so the
app works on a machine with no network."""

from __future__ import annotations

import html

from bazarsim.report.html import CSS

SCREENS = (("hand", "Hand analysis"), ("study", "Study browser"), ("replay", "Deal replay"))

APP_CSS = """
body { max-width: 1180px; }
nav.app { display: flex; gap: 1.2em; border-bottom: 1px solid var(--line); padding: .4em 0;
          margin-bottom: 1em; }
nav.app a { text-decoration: none; color: var(--muted); font-weight: 600; }
nav.app a.here { color: var(--ink); border-bottom: 3px solid #2b6cb0; }
.app-form fieldset { border: 1px solid var(--line); margin: 0 0 .8em; padding: .4em .8em .7em; }
.app-form legend { color: var(--muted); font-size: .9em; }
.app-form label { display: inline-block; margin: .35em 1.1em .2em 0; font-size: .92em; }
.app-form label.wide { display: block; }
.app-form input, .app-form select, .app-form textarea { font: inherit; padding: .15em .3em; }
.app-form textarea { width: 100%; }
button { font: inherit; padding: .3em 1em; cursor: pointer; }
.status { margin: .8em 0; min-height: 1.6em; }
.status .bar { display: inline-block; width: 240px; height: .8em; background: var(--band);
               border: 1px solid var(--line); vertical-align: middle; margin-right: .6em; }
.status .bar span { display: block; height: 100%; background: #2b6cb0; width: 0; }
.status .error { color: #b00020; font-weight: 600; }
.status .cancelled { color: var(--muted); }
.status button { margin-left: .8em; padding: .1em .6em; }
"""

# The script every screen uses: bz.fields(form) reads a form, bz.run(task, fields, ui)
# asks a question and shows where it stands in ui.status (queue place, progress, a cancel
# button, an error), hands a part of the result sent ahead to ui.partial (once), and
# resolves with the result (null when cancelled or failed);
# bz.info(name, query) is a quick lookup; bz.download(name, text) offers a file. Each step
# is timed into window.bzTimes (submit, first progress, first result shown, done) for the
# benchmarks.
APP_JS = r"""
const bz = (() => {
  window.bzTimes = [];
  async function answer(resp) {
    let body = null;
    try { body = await resp.json(); } catch (e) { body = null; }
    if (!resp.ok) {
      throw new Error((body && body.error) || `the server answered ${resp.status}`);
    }
    return body;
  }
  function fields(form) {
    const out = {};
    for (const el of form.elements) {
      if (!el.name || el.disabled) continue;
      if (el.type === 'checkbox') {
        if (!(el.name in out)) out[el.name] = [];
        if (el.checked) out[el.name].push(el.value);
      } else if (el.type === 'radio') {
        if (el.checked) out[el.name] = el.value;
      } else if (el.value.trim() !== '') {
        out[el.name] = el.value;
      }
    }
    return out;
  }
  function show(status, html, cls) {
    status.innerHTML = '';
    const span = document.createElement('span');
    if (cls) span.className = cls;
    span.innerHTML = html;
    status.appendChild(span);
    status.dataset.state = cls || '';
    return span;
  }
  function esc(t) {
    return String(t).replace(/[&<>"]/g, c => ({'&': '&amp;', '<': '&lt;', '>': '&gt;',
                                                '"': '&quot;'})[c]);
  }
  async function run(task, flds, ui) {
    const status = ui.status;
    const times = {task: task, submit: performance.now(), progress: null, shown: null,
                   done: null};
    window.bzTimes.push(times);
    if (ui.button) ui.button.disabled = true;
    show(status, 'asking', 'asking');  // the last answer's state is gone from now on
    let job;
    try {
      job = await answer(await fetch('/api/jobs', {
        method: 'POST', headers: {'Content-Type': 'application/json'},
        body: JSON.stringify({task: task, fields: flds})}));
    } catch (e) {
      show(status, esc(e.message), 'error');
      if (ui.button) ui.button.disabled = false;
      return null;
    }
    status.dataset.job = job.id;
    let version = job.version;
    let cancelled = false;
    const cancel = async () => {
      cancelled = true;
      await fetch('/api/jobs/' + job.id, {method: 'DELETE'});
    };
    try {
      for (;;) {
        // news of the job: the server answers as soon as something changed since the
        // version seen (or after a second with none)
        const st = await answer(await fetch(`/api/jobs/${job.id}?since=${version}`));
        version = st.version;
        if (st.state === 'done') {
          times.done = performance.now();
          if (times.shown === null) times.shown = times.done;
          show(status, 'done', 'done');
          return st.result;
        }
        if (st.partial && times.shown === null && ui.partial) {
          ui.partial(st.partial);
          times.shown = performance.now();
        }
        if (st.state === 'error') { show(status, esc(st.error), 'error'); return null; }
        if (st.state === 'cancelled') { show(status, 'cancelled', 'cancelled'); return null; }
        let span;
        if (st.state === 'queued') {
          span = show(status, `waiting: place ${st.place} in the queue`, 'queued');
        } else {
          if (times.progress === null) times.progress = performance.now();
          const pct = st.share === null ? 0 : Math.round(100 * st.share);
          span = show(status, `<span class="bar"><span style="width:${pct}%"></span></span>` +
                      `<span class="words">${esc(st.words || '')}</span>`, 'running');
          span.dataset.share = st.share === null ? '' : st.share;
        }
        const b = document.createElement('button');
        b.type = 'button'; b.className = 'cancel'; b.textContent = 'Cancel';
        b.disabled = cancelled;
        b.addEventListener('click', cancel);
        span.appendChild(b);
      }
    } catch (e) {
      show(status, esc(e.message), 'error');
      return null;
    } finally {
      if (ui.button) ui.button.disabled = false;
    }
  }
  async function info(name, query) {
    const q = new URLSearchParams(query || {}).toString();
    return answer(await fetch('/api/info/' + name + (q ? '?' + q : '')));
  }
  function download(name, text) {
    const a = document.createElement('a');
    a.href = URL.createObjectURL(new Blob([text], {type: 'text/csv'}));
    a.download = name;
    document.body.appendChild(a);
    a.click();
    a.remove();
  }
  return {fields, run, info, download, esc};
})();
"""


def shell(screen: str, body: str, script: str) -> str:
    """A whole page: the screen's body and script inside the app's frame."""
    title = dict(SCREENS)[screen]
    menu = "".join(f'<a href="/{key}"{" class=here" if key == screen else ""}>'
                   f"{html.escape(label)}</a>" for key, label in SCREENS)
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            '<link rel="icon" href="data:,">'  # no favicon request
            f"<title>bazarsim: {html.escape(title)}</title><style>{CSS}{APP_CSS}</style>"
            f'</head><body data-screen="{screen}"><nav class="app"><strong>bazarsim</strong>'
            f"{menu}</nav><main><h1>{html.escape(title)}</h1>{body}</main>"
            f"<script>{APP_JS}</script><script>{script}</script></body></html>\n")


def error_page(status: int, message: str) -> str:
    """A page for a wrong address: a message, never a traceback."""
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>bazarsim: {status}</title><style>{CSS}</style></head><body>"
            f"<h1>{status}</h1><p>{html.escape(message)}</p>"
            '<p><a href="/hand">Back to the app</a></p></body></html>\n')
