/**
 * The proxy's live page, `GET /_agent-context/`: one self-contained HTML document (inline CSS
 * and script, nothing fetched from elsewhere) that reads the JSON routes and refreshes itself.
 * Every string the page shows is put in with `textContent`, never parsed as HTML, and the
 * Content-Security-Policy allows only this script and this style (by their hashes) and fetches
 * to the proxy itself.
 */
import { createHash } from 'node:crypto';

const STYLE = `
:root { color-scheme: light; --ink: #1f2937; --muted: #6b7280; --line: #e5e7eb; --sent: #0f766e; --unmanaged: #b45309; --warn: #b91c1c; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: #f9fafb; }
header { display: flex; align-items: baseline; gap: 16px; padding: 14px 24px; background: #fff; border-bottom: 1px solid var(--line); }
header h1 { font-size: 17px; margin: 0; }
header a { color: inherit; text-decoration: none; }
#status { color: var(--muted); font-size: 12px; margin-left: auto; }
#status.error { color: var(--warn); }
main { padding: 18px 24px 40px; }
h2 { font-size: 15px; margin: 22px 0 8px; }
table { border-collapse: collapse; width: 100%; background: #fff; border: 1px solid var(--line); }
th, td { text-align: left; padding: 6px 10px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-size: 12px; color: var(--muted); font-weight: 600; background: #f3f4f6; }
td.number { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.warning { color: var(--warn); max-width: 360px; }
td.actions { white-space: pre-line; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12px; }
.sent { color: var(--sent); font-weight: 600; }
.unmanaged { color: var(--unmanaged); }
.saved { color: var(--muted); font-size: 12px; }
.cards { display: flex; flex-wrap: wrap; gap: 12px; }
.card { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 10px 14px; min-width: 150px; }
.card .label { font-size: 12px; color: var(--muted); }
.card .value { font-size: 18px; font-weight: 600; }
.card.warning .value { font-size: 13px; color: var(--warn); font-weight: 400; max-width: 520px; }
pre { white-space: pre-wrap; word-break: break-word; background: #fff; border: 1px solid var(--line); padding: 10px 12px; margin: 6px 0 14px; font: 12px/1.5 ui-monospace, SFMono-Regular, Menlo, monospace; }
.summary-head { color: var(--muted); font-size: 12px; }
.empty { color: var(--muted); }
`;

const SCRIPT = `
(function () {
  'use strict';
  var BASE = '/_agent-context';
  var REFRESH_MS = 3000;
  var token = new URLSearchParams(location.search).get('token');
  var main = document.getElementById('main');
  var status = document.getElementById('status');
  var timer;
  var integer = new Intl.NumberFormat('en-US');

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function link(href, text) {
    var node = el('a', '', text);
    node.href = href;
    return node;
  }
  function request(path) {
    var headers = {};
    if (token) headers['x-agent-context-token'] = token;
    return fetch(BASE + path, { headers: headers, cache: 'no-store' }).then(function (response) {
      if (!response.ok)
        return response.text().then(function (text) {
          throw new Error(response.status + ': ' + text.slice(0, 300));
        });
      return response;
    });
  }
  function money(value) {
    return '$' + value.toFixed(value < 1 ? 4 : 2);
  }
  function saved(sent, unmanaged) {
    return unmanaged > 0 ? Math.round(100 * (1 - sent / unmanaged)) + '% saved' : '';
  }
  function time(iso) {
    var date = new Date(iso);
    return isNaN(date.getTime()) ? String(iso) : date.toLocaleString();
  }
  function bytes(value) {
    if (value === null || value === undefined) return 'gone';
    if (value < 1024) return value + ' B';
    if (value < 1048576) return (value / 1024).toFixed(1) + ' KB';
    return (value / 1048576).toFixed(1) + ' MB';
  }
  function cell(row, text, className) {
    var node = el('td', className || '', text);
    row.appendChild(node);
    return node;
  }
  function pair(row, sent, unmanaged, format) {
    var node = cell(row, '', 'number');
    node.appendChild(el('span', 'sent', format(sent)));
    node.appendChild(document.createTextNode(' / '));
    node.appendChild(el('span', 'unmanaged', format(unmanaged)));
    node.appendChild(el('div', 'saved', saved(sent, unmanaged)));
  }
  function table(headings) {
    var node = el('table');
    var head = el('tr');
    headings.forEach(function (heading) {
      head.appendChild(el('th', '', heading));
    });
    node.appendChild(el('thead')).appendChild(head);
    node.appendChild(el('tbody'));
    return node;
  }
  function card(parent, label, value, className) {
    var node = el('div', 'card ' + (className || ''));
    node.appendChild(el('div', 'label', label));
    node.appendChild(el('div', 'value', value));
    parent.appendChild(node);
  }
  function sessionHref(id) {
    return '#/sessions/' + encodeURIComponent(id);
  }
  function contentHref(id, reference) {
    return sessionHref(id) + '/content/' + encodeURIComponent(reference);
  }

  function renderList(data) {
    var fragment = document.createDocumentFragment();
    fragment.appendChild(el('h2', '', 'Sessions (' + data.sessions.length + ')'));
    if (data.sessions.length === 0) {
      fragment.appendChild(el('p', 'empty', 'No request has gone through the proxy yet.'));
      return fragment;
    }
    var list = table(['session', 'requests', 'tokens sent / unmanaged', 'cost sent / unmanaged', 'offloads', 'compactions', 'last activity', 'last warning']);
    list.id = 'sessions';
    var body = list.querySelector('tbody');
    data.sessions.forEach(function (session) {
      var row = el('tr');
      row.setAttribute('data-session', session.id);
      cell(row, '').appendChild(link(sessionHref(session.id), session.id));
      cell(row, integer.format(session.requests), 'number');
      pair(row, session.tokensSent, session.tokensUnmanaged, integer.format);
      pair(row, session.costSent, session.costUnmanaged, money);
      cell(row, integer.format(session.offloads), 'number');
      cell(row, integer.format(session.compactions), 'number');
      cell(row, time(session.lastActivity));
      cell(row, session.lastWarning === null ? '' : session.lastWarning, 'warning');
      body.appendChild(row);
    });
    fragment.appendChild(list);
    return fragment;
  }

  function renderSession(session) {
    var fragment = document.createDocumentFragment();
    fragment.appendChild(el('p')).appendChild(link('#/', '\\u2190 all sessions'));
    var title = el('h2', '', 'Session ');
    title.appendChild(el('code', '', session.id));
    fragment.appendChild(title);
    var cards = el('div', 'cards');
    card(cards, 'requests', integer.format(session.requests));
    card(cards, 'tokens sent / unmanaged', integer.format(session.tokensSent) + ' / ' + integer.format(session.tokensUnmanaged));
    card(cards, 'cost sent / unmanaged', money(session.costSent) + ' / ' + money(session.costUnmanaged));
    card(cards, 'offloads', integer.format(session.offloads));
    card(cards, 'compactions', integer.format(session.compactions));
    card(cards, 'last activity', time(session.lastActivity));
    if (session.lastWarning !== null) card(cards, 'last warning', session.lastWarning, 'warning');
    fragment.appendChild(cards);

    fragment.appendChild(el('h2', '', 'Requests'));
    var requests = table(['#', 'time', 'route', 'outcome', 'messages', 'tokens before', 'tokens after', 'actions']);
    requests.id = 'requests';
    session.requestLog.forEach(function (logged, index) {
      var row = el('tr');
      cell(row, index + 1, 'number');
      cell(row, time(logged.time));
      cell(row, logged.route);
      cell(row, logged.outcome);
      cell(row, logged.messagesIn + ' \\u2192 ' + logged.messagesOut, 'number');
      cell(row, integer.format(logged.tokensBefore), 'number unmanaged');
      cell(row, integer.format(logged.tokensAfter), 'number sent');
      cell(row, logged.actions.join('\\n'), 'actions');
      requests.querySelector('tbody').appendChild(row);
    });
    fragment.appendChild(requests);

    fragment.appendChild(el('h2', '', 'Summaries (' + session.summaries.length + ')'));
    if (session.summaries.length === 0) fragment.appendChild(el('p', 'empty', 'No compaction yet.'));
    session.summaries.forEach(function (summary) {
      var head = el('div', 'summary-head', time(summary.time) + ': ' + integer.format(summary.tokensBefore) + ' \\u2192 ' + integer.format(summary.tokensAfter) + ' tokens');
      if (summary.archive !== null) {
        head.appendChild(document.createTextNode(' \\u00b7 '));
        head.appendChild(link(contentHref(session.id, summary.archive), 'archive'));
      }
      fragment.appendChild(head);
      fragment.appendChild(el('pre', 'summary', summary.text));
    });

    fragment.appendChild(el('h2', '', 'Archives and offloaded results (' + session.contents.length + ')'));
    if (session.contents.length === 0) fragment.appendChild(el('p', 'empty', 'Nothing offloaded or archived yet.'));
    else {
      var contents = table(['time', 'kind', 'tool call', 'size', 'reference']);
      contents.id = 'contents';
      session.contents.forEach(function (content) {
        var row = el('tr');
        cell(row, time(content.time));
        cell(row, content.kind);
        cell(row, content.toolCallId || '');
        cell(row, bytes(content.bytes), 'number');
        cell(row, '').appendChild(link(contentHref(session.id, content.reference), content.reference));
        contents.querySelector('tbody').appendChild(row);
      });
      fragment.appendChild(contents);
    }
    return fragment;
  }

  function renderContent(id, reference, text) {
    var fragment = document.createDocumentFragment();
    fragment.appendChild(el('p')).appendChild(link(sessionHref(id), '\\u2190 session ' + id));
    var title = el('h2', '', '');
    title.appendChild(el('code', '', reference));
    fragment.appendChild(title);
    fragment.appendChild(el('pre', 'content', text));
    return fragment;
  }

  function show(fragment) {
    main.replaceChildren(fragment);
  }
  function refresh() {
    clearTimeout(timer);
    var parts = location.hash.replace(/^#\\/?/, '').split('/');
    var loading;
    var again = true;
    if (parts[0] === 'sessions' && parts[1]) {
      var id = decodeURIComponent(parts[1]);
      if (parts[2] === 'content' && parts[3]) {
        var reference = decodeURIComponent(parts.slice(3).join('/'));
        again = false;
        loading = request('/api/sessions/' + encodeURIComponent(id) + '/content?ref=' + encodeURIComponent(reference))
          .then(function (response) { return response.text(); })
          .then(function (text) { return renderContent(id, reference, text); });
      } else
        loading = request('/api/sessions/' + encodeURIComponent(id))
          .then(function (response) { return response.json(); })
          .then(renderSession);
    } else
      loading = request('/api/sessions')
        .then(function (response) { return response.json(); })
        .then(renderList);
    loading
      .then(function (fragment) {
        show(fragment);
        status.className = '';
        status.textContent = 'updated ' + new Date().toLocaleTimeString() + (again ? ', every ' + REFRESH_MS / 1000 + ' s' : '');
      })
      .catch(function (error) {
        status.className = 'error';
        status.textContent = String(error && error.message ? error.message : error);
      })
      .then(function () {
        if (again) timer = setTimeout(refresh, REFRESH_MS);
      });
  }
  window.addEventListener('hashchange', refresh);
  refresh();
})();
`;

function sha256(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

/** The page's HTML: the same bytes for every request (the data comes from the JSON routes). */
export const OWN_PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>agent-context proxy</title>
<style>${STYLE}</style>
</head>
<body>
<header><h1><a href="#/">agent-context proxy</a></h1><span id="status">loading\u2026</span></header>
<main id="main"></main>
<script>${SCRIPT}</script>
</body>
</html>
`;

/**
 * The page's Content-Security-Policy: nothing loads but its own script and style (allowed by
 * their hashes, not by `'unsafe-inline'`) and fetches to the proxy itself.
 */
export const OWN_PAGE_CSP = [
  "default-src 'none'",
  `script-src ${sha256(SCRIPT)}`,
  `style-src ${sha256(STYLE)}`,
  "connect-src 'self'",
  "img-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');
