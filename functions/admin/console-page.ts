/**
 * `GET /admin/` (and `/admin`): the operator console, a small client over the admin routes, in
 * Portuguese, for a desk and a phone (nothing scrolls sideways at 390 px).
 *
 * One self-contained document: no external scripts, styles, fonts or images. Its Content
 * Security Policy forbids everything but its own style and script (allowed by their SHA-256
 * hashes) and requests to this site (`connect-src 'self'`). Everything the leads hold (what a
 * person typed) is put into the page with `textContent`, never as HTML.
 *
 * The page is built per operator only for its CSRF token (csrf.ts), given in a `<meta>` and sent
 * as `X-CSRF-Token` with every request that changes something; it is `no-store`.
 *
 * Views (the address's `#` part, so that the back button works and a lead can be linked):
 * `#/` the leads (filters: status, profile, period; search: name, e-mail, phone; the parked ones
 * as a CSV; replay of the dead ones), `#/lead/<id>` one lead (its timeline, what the person sent,
 * the Prospect, the correction form, retry), `#/preview` (a body mapped as a platform would
 * send it; a test lead through the real path) and `#/setup` (each profile's set-up kit). The
 * upstream's health and backlog head every view.
 */
import { createHash } from 'node:crypto';
import type { HttpResponse } from '../kernel/http.ts';

const STYLE = `
:root { color-scheme: light; --ink: #1d2733; --muted: #5f6b7a; --line: #e3e8ef; --bg: #f4f6f9;
  --card: #fff; --bad: #b42318; --warn: #b54708; --ok: #15803d; --accent: #2456a6; }
* { box-sizing: border-box; }
[hidden] { display: none !important; }
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif;
  color: var(--ink); background: var(--bg); }
header { background: #14213d; color: #fff; }
.bar { max-width: 1180px; margin: 0 auto; padding: 10px 20px; display: flex; flex-wrap: wrap; gap: 8px 18px; align-items: center; }
.bar h1 { font-size: 18px; margin: 0; }
.bar nav { display: flex; gap: 4px; flex-wrap: wrap; }
.bar nav a { color: #dbe4f3; text-decoration: none; padding: 6px 10px; border-radius: 6px; }
.bar nav a.on { background: #2b3d63; color: #fff; }
.who { margin-left: auto; color: #b9c6dc; font-size: 13px; }
main { max-width: 1180px; margin: 0 auto; padding: 16px 20px 48px; }
.health { display: flex; flex-wrap: wrap; gap: 6px 16px; font-size: 14px; padding: 10px 14px; border-radius: 8px;
  background: var(--card); border: 1px solid var(--line); margin-bottom: 14px; }
.health b.ok { color: var(--ok); } .health b.bad { color: var(--bad); }
h2 { font-size: 20px; margin: 6px 0 12px; }
h3 { font-size: 16px; margin: 18px 0 8px; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 14px; margin-bottom: 14px; min-width: 0; }
form.filters { display: grid; grid-template-columns: repeat(auto-fit, minmax(150px, 1fr)); gap: 10px; align-items: end; }
label { display: block; font-size: 13px; color: var(--muted); }
input, select, textarea { font: inherit; width: 100%; padding: 7px 9px; border: 1px solid #c8d0db; border-radius: 6px; background: #fff; color: var(--ink); }
textarea { min-height: 160px; font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 13px; }
button, .button { font: inherit; padding: 8px 14px; border-radius: 6px; border: 1px solid var(--accent); background: var(--accent);
  color: #fff; cursor: pointer; text-decoration: none; display: inline-block; }
button.plain, .button.plain { background: #fff; color: var(--accent); }
button:disabled { opacity: .55; cursor: default; }
.actions { display: flex; flex-wrap: wrap; gap: 8px; margin: 10px 0; }
table { width: 100%; border-collapse: collapse; }
th, td { text-align: left; padding: 8px 6px; border-bottom: 1px solid var(--line); vertical-align: top; overflow-wrap: anywhere; }
th { font-size: 13px; color: var(--muted); font-weight: 600; }
tr.lead { cursor: pointer; } tr.lead:hover { background: #f0f4fb; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 12px; font-weight: 600; background: #e8edf5; white-space: nowrap; }
.badge.parked, .badge.rejected, .badge.dead { background: #fde7e4; color: var(--bad); }
.badge.delivered { background: #e3f5e8; color: var(--ok); }
.badge.queued { background: #fff3dc; color: var(--warn); }
.muted { color: var(--muted); font-size: 13px; }
.msg { padding: 10px 12px; border-radius: 8px; margin: 10px 0; background: #e8f1ff; }
.msg.error { background: #fde7e4; color: var(--bad); }
.msg.ok { background: #e3f5e8; color: var(--ok); }
.msg.warn { background: #fff4d6; color: #6b4a00; }
dl.kv { display: grid; grid-template-columns: minmax(110px, max-content) 1fr; gap: 4px 14px; margin: 0; }
dl.kv dt { color: var(--muted); font-size: 13px; } dl.kv dd { margin: 0; overflow-wrap: anywhere; }
ol.timeline { margin: 0; padding-left: 20px; } ol.timeline li { margin: 4px 0; }
.grid2 { display: grid; grid-template-columns: 1fr 1fr; gap: 14px; }
.fields { display: grid; grid-template-columns: repeat(auto-fit, minmax(170px, 1fr)); gap: 10px; }
pre { background: #0f172a; color: #e2e8f0; padding: 10px; border-radius: 8px; overflow-x: auto; font-size: 12px; white-space: pre-wrap; overflow-wrap: anywhere; }
code { overflow-wrap: anywhere; }
@media (max-width: 720px) {
  main { padding: 12px 10px 40px; }
  .grid2 { grid-template-columns: 1fr; }
  table.leads thead { display: none; }
  table.leads tr { display: block; border-bottom: 1px solid var(--line); padding: 8px 2px; }
  table.leads td { display: block; border: 0; padding: 2px 4px; }
  .who { margin-left: 0; }
}
`;

const SCRIPT = `
(function () {
  'use strict';
  var token = document.querySelector('meta[name="csrf-token"]').getAttribute('content');
  var base = location.pathname.replace(/\\/admin\\/?$/, '') + '/admin/';
  var view = document.getElementById('view');
  var LABELS = { queued: 'Na fila', delivered: 'Entregue', rejected: 'Recusado', dead: 'Esgotado',
    test: 'Teste', parked: 'Parado' };
  var EDITABLE = [['name', 'Nome'], ['lastName', 'Sobrenome'], ['email', 'E-mail'], ['ddi', 'DDI'],
    ['cellphone', 'Celular (com DDD)'], ['idBranch', 'Unidade (idBranch)'], ['cpf', 'CPF'],
    ['marketingType', 'Origem (marketingType)']];

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (key) {
      if (key === 'text') node.textContent = attrs[key];
      else if (key === 'class') node.className = attrs[key];
      else if (key.slice(0, 2) === 'on') node.addEventListener(key.slice(2), attrs[key]);
      else node.setAttribute(key, attrs[key]);
    });
    (children || []).forEach(function (child) {
      if (child !== null && child !== undefined) node.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
    });
    return node;
  }
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); return node; }
  function when(iso) {
    if (!iso) return '';
    var d = new Date(iso);
    return isNaN(d) ? iso : d.toLocaleString('pt-BR', { dateStyle: 'short', timeStyle: 'medium' });
  }
  function badge(status) { return el('span', { class: 'badge ' + status, text: LABELS[status] || status }); }
  function message(text, kind) { return el('div', { class: 'msg' + (kind ? ' ' + kind : ''), role: 'status', text: text }); }
  /** Which branch a lead goes to and why (an answer that named no branch is a warning). */
  function branchLine(branch) { var line = message(branch.text, branch.warning ? 'warn' : ''); line.className += ' branch'; return line; }

  function api(method, path, body, contentType) {
    var headers = { 'accept': 'application/json' };
    if (method !== 'GET') headers['x-csrf-token'] = token;
    if (body !== undefined) headers['content-type'] = contentType || 'application/json';
    return fetch(base + path, { method: method, headers: headers, credentials: 'same-origin',
      body: body === undefined ? undefined : (typeof body === 'string' ? body : JSON.stringify(body)) })
      .then(function (response) {
        return response.text().then(function (text) {
          var data = null;
          try { data = text ? JSON.parse(text) : null; } catch (e) { data = { text: text }; }
          if (!response.ok) {
            var error = (data && data.error) || {};
            var details = (error.details || []).map(function (d) {
              return typeof d === 'string' ? d : (d.field ? d.field + ': ' : '') + d.message;
            });
            throw new Error((error.message || ('HTTP ' + response.status)) + (details.length ? ' (' + details.join('; ') + ')' : ''));
          }
          return data;
        });
      });
  }

  function loadHealth() {
    var box = document.getElementById('health');
    api('GET', 'upstream').then(function (h) {
      var open = h.circuit.state === 'open';
      clear(box).appendChild(el('span', {}, ['Upstream: ', el('b', { class: open ? 'bad' : 'ok',
        text: open ? 'fora do ar (circuito aberto)' : 'respondendo' })]));
      if (open && h.circuit.reason) box.appendChild(el('span', { text: 'Motivo: ' + h.circuit.reason }));
      if (open && h.circuit.nextProbeAt) box.appendChild(el('span', { text: 'Nova tentativa: ' + when(h.circuit.nextProbeAt) }));
      box.appendChild(el('span', { text: 'Leads a caminho: ' + (h.backlog || 0) }));
      if (h.circuit.lastSuccessAt) box.appendChild(el('span', { class: 'muted', text: 'Último envio bem-sucedido: ' + when(h.circuit.lastSuccessAt) }));
    }).catch(function (e) { clear(box).appendChild(el('span', { text: 'Upstream: ' + e.message })); });
  }

  function field(label, input) { return el('label', {}, [label, input]); }
  function options(values, labels, selected, empty) {
    var select = el('select');
    if (empty) select.appendChild(el('option', { value: '', text: empty }));
    values.forEach(function (v) {
      var o = el('option', { value: v, text: labels ? (labels[v] || v) : v });
      if (v === selected) o.selected = true;
      select.appendChild(o);
    });
    return select;
  }

  // ---- the leads
  function showLeads(params) {
    var profiles = JSON.parse(document.getElementById('profiles').textContent);
    var statuses = JSON.parse(document.getElementById('statuses').textContent);
    var status = options(statuses, LABELS, params.get('status') || '', 'Todos');
    status.name = 'status';
    var profile = options(profiles, null, params.get('profile') || '', 'Todos');
    profile.name = 'profile';
    var since = el('input', { type: 'date', name: 'since', value: params.get('since') || '' });
    var until = el('input', { type: 'date', name: 'until', value: params.get('until') || '' });
    var q = el('input', { type: 'search', name: 'q', value: params.get('q') || '', placeholder: 'nome, e-mail ou telefone' });
    var form = el('form', { class: 'filters', role: 'search' }, [
      field('Situação', status), field('Perfil', profile), field('De', since), field('Até', until),
      field('Buscar', q), el('button', { type: 'submit', text: 'Filtrar' })]);
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      var next = new URLSearchParams();
      [status, profile, since, until, q].forEach(function (input) { if (input.value) next.set(input.name, input.value); });
      location.hash = '#/?' + next.toString();
    });
    var csv = el('a', { class: 'button plain', href: base + 'leads.csv?status=parked', download: '', text: 'Exportar parados (CSV)' });
    var replayNote = el('div');
    var replay = el('button', { class: 'plain', type: 'button', text: 'Reenviar todos os esgotados', onclick: function () {
      replay.disabled = true;
      api('POST', 'replay').then(function (r) {
        clear(replayNote).appendChild(message(r.requeued + ' leads esgotados voltaram para a fila.', 'ok'));
      }).catch(function (e) { clear(replayNote).appendChild(message(e.message, 'error')); })
        .then(function () { replay.disabled = false; });
    } });
    var list = el('div', {}, [message('Carregando…')]);
    clear(view).appendChild(el('h2', { text: 'Leads' }));
    view.appendChild(el('div', { class: 'card' }, [form, el('div', { class: 'actions' }, [csv, replay]), replayNote]));
    view.appendChild(list);

    var query = new URLSearchParams(params);
    query.set('limit', '50');
    if (!query.get('order')) query.set('order', 'newest');
    var rows = el('tbody');
    var table = el('table', { class: 'leads' }, [el('thead', {}, [el('tr', {}, ['Recebido', 'Situação', 'Perfil', 'Pessoa', 'Motivo'].map(function (h) { return el('th', { text: h }); }))]), rows]);
    var more = el('button', { class: 'plain', type: 'button', text: 'Mostrar mais', hidden: '' });
    function page(cursor) {
      if (cursor) query.set('cursor', cursor);
      return api('GET', 'leads?' + query.toString()).then(function (data) {
        if (!rows.firstChild && data.leads.length === 0) { clear(list).appendChild(message('Nenhum lead com esses filtros.')); return; }
        if (!table.parentNode) clear(list).appendChild(el('div', { class: 'card' }, [table, more]));
        data.leads.forEach(function (lead) {
          var c = lead.contact || {};
          var open = function () { location.hash = '#/lead/' + lead.leadId; };
          rows.appendChild(el('tr', { class: 'lead', 'data-lead': lead.leadId, onclick: open }, [
            el('td', { text: when(lead.receivedAt) }), el('td', {}, [badge(lead.status)]),
            el('td', { text: lead.profile }),
            el('td', {}, [el('a', { href: '#/lead/' + lead.leadId, text: c.name || lead.leadId }),
              el('div', { class: 'muted', text: [c.email, c.phone].filter(Boolean).join(' · ') })]),
            el('td', { class: 'muted', text: lead.reason || lead.lastError || '' })]));
        });
        if (data.cursor) { more.hidden = false; more.onclick = function () { page(data.cursor); }; } else more.hidden = true;
      }).catch(function (e) { clear(list).appendChild(message(e.message, 'error')); });
    }
    page();
  }

  // ---- one lead
  function kv(pairs) {
    var dl = el('dl', { class: 'kv' });
    pairs.forEach(function (pair) {
      if (pair[1] === undefined || pair[1] === null || pair[1] === '') return;
      dl.appendChild(el('dt', { text: pair[0] }));
      dl.appendChild(el('dd', { text: typeof pair[1] === 'object' ? JSON.stringify(pair[1]) : String(pair[1]) }));
    });
    return dl;
  }

  function showLead(leadId, notice) {
    clear(view).appendChild(el('p', {}, [el('a', { href: '#/', text: '← Leads' })]));
    var box = el('div', {}, [message('Carregando…')]);
    view.appendChild(box);
    api('GET', 'leads/' + encodeURIComponent(leadId)).then(function (lead) {
      clear(box);
      var c = lead.contact || {};
      box.appendChild(el('h2', {}, [(c.name || lead.leadId) + ' ', badge(lead.status)]));
      if (notice) box.appendChild(notice);
      var timeline = el('ol', { class: 'timeline' }, [el('li', { text: 'Recebido ' + when(lead.receivedAt) + ' pelo perfil ' + lead.profile })]);
      if (lead.correctedAt) timeline.appendChild(el('li', { text: 'Corrigido por ' + lead.correctedBy + ' em ' + when(lead.correctedAt) }));
      if (lead.attempts || lead.tries) timeline.appendChild(el('li', { text: 'Tentativas de envio: ' + (lead.tries || lead.attempts) }));
      if (lead.lastError) timeline.appendChild(el('li', { text: 'Último erro: ' + lead.lastError }));
      if (lead.reason) timeline.appendChild(el('li', { text: (lead.status === 'parked' ? 'Parado: ' : 'Motivo: ') + lead.reason }));
      (lead.messages || []).forEach(function (m) { timeline.appendChild(el('li', { text: 'Resposta do upstream: ' + m })); });
      if (lead.nextAttemptAt) timeline.appendChild(el('li', { text: 'Próxima tentativa: ' + when(lead.nextAttemptAt) }));
      if (lead.status === 'delivered') timeline.appendChild(el('li', { class: 'delivered', text: 'Entregue ' + when(lead.deliveredAt) + ' como prospect ' + lead.idProspect }));
      box.appendChild(el('div', { class: 'card' }, [el('h3', { text: 'Linha do tempo' }), timeline, el('p', { class: 'muted', text: lead.leadId })]));
      if (lead.branch || lead.warnings) {
        box.appendChild(el('div', { class: 'card', id: 'mapping' }, [el('h3', { text: 'Unidade' }), lead.branch ? branchLine(lead.branch) : null,
          lead.warnings ? el('h3', { text: 'Avisos' }) : null,
          lead.warnings ? el('ul', { class: 'warnings' }, lead.warnings.map(function (w) { return el('li', { text: w }); })) : null]));
      }

      var sent = lead.submitted || { answers: [], attribution: {} };
      var answers = el('tbody');
      sent.answers.forEach(function (a) {
        answers.appendChild(el('tr', {}, [el('th', { text: a.label || a.key }), el('td', { text: Array.isArray(a.value) ? a.value.join(', ') : a.value })]));
      });
      if (sent.prospect) Object.keys(sent.prospect).forEach(function (k) { answers.appendChild(el('tr', {}, [el('th', { text: k }), el('td', { text: String(sent.prospect[k]) })])); });
      var typed = el('div', { class: 'card', id: 'submitted' }, [el('h3', { text: 'O que a pessoa enviou' }), el('table', {}, [answers]),
        Object.keys(sent.attribution || {}).length ? el('h3', { text: 'Origem' }) : null,
        kv(Object.keys(sent.attribution || {}).map(function (k) { return [k, sent.attribution[k]]; }))]);
      var prospect = lead.prospect || {};
      var mapped = el('div', { class: 'card', id: 'prospect' }, [el('h3', { text: 'O prospect que ele virou' }),
        kv(Object.keys(prospect).map(function (k) { return [k, prospect[k]]; }))]);
      box.appendChild(el('div', { class: 'grid2' }, [typed, mapped]));

      var result = el('div');
      var actions = el('div', { class: 'actions' });
      function retry() {
        return api('POST', 'leads/' + encodeURIComponent(leadId) + '/retry').then(function () { follow(leadId); });
      }
      if (lead.status !== 'delivered') {
        actions.appendChild(el('button', { type: 'button', class: 'plain', text: 'Tentar de novo', onclick: function (event) {
          event.target.disabled = true;
          retry().catch(function (e) { clear(result).appendChild(message(e.message, 'error')); event.target.disabled = false; });
        } }));
      }
      if (lead.correctable) {
        var inputs = {};
        var fields = el('div', { class: 'fields' }, EDITABLE.map(function (pair) {
          var value = prospect[pair[0]];
          inputs[pair[0]] = el('input', { name: pair[0], value: value === undefined || value === null ? '' : String(value),
            inputmode: pair[0] === 'idBranch' || pair[0] === 'cellphone' || pair[0] === 'ddi' ? 'numeric' : 'text' });
          return field(pair[1], inputs[pair[0]]);
        }));
        var form = el('form', { id: 'correct' }, [el('h3', { text: 'Corrigir e reenviar' }),
          el('p', { class: 'muted', text: 'Preencha o que falta ou corrija; a correção vale em todo envio deste lead.' }), fields,
          el('div', { class: 'actions' }, [el('button', { type: 'submit', text: 'Salvar e reenviar' })])]);
        form.addEventListener('submit', function (event) {
          event.preventDefault();
          var change = {};
          EDITABLE.forEach(function (pair) {
            var key = pair[0], typedValue = inputs[key].value.trim();
            var before = prospect[key] === undefined || prospect[key] === null ? '' : String(prospect[key]);
            if (typedValue === before) return;
            change[key] = typedValue === '' ? null : (key === 'idBranch' ? Number(typedValue) : typedValue);
          });
          if (change.cellphone && prospect.ddi && change.ddi === undefined) change.ddi = prospect.ddi;
          form.querySelector('button').disabled = true;
          api('PATCH', 'leads/' + encodeURIComponent(leadId), { prospect: change })
            .then(retry)
            .catch(function (e) { clear(result).appendChild(message(e.message, 'error')); form.querySelector('button').disabled = false; });
        });
        box.appendChild(el('div', { class: 'card' }, [form, actions, result]));
      } else if (actions.firstChild) {
        box.appendChild(el('div', { class: 'card' }, [actions, result]));
      }
    }).catch(function (e) { clear(box).appendChild(message(e.message, 'error')); });
  }

  /** After a resend: the lead's page again, followed until it leaves the queue. */
  function follow(leadId) {
    var tries = 0;
    function check() {
      api('GET', 'leads/' + encodeURIComponent(leadId)).then(function (lead) {
        if (lead.status === 'queued' && tries++ < 30 && location.hash === '#/lead/' + leadId) { setTimeout(check, 1000); return; }
        var text = lead.status === 'delivered' ? 'Entregue como prospect ' + lead.idProspect + '.' :
          lead.status === 'queued' ? 'Na fila: será enviado assim que o upstream permitir.' : 'Situação: ' + (LABELS[lead.status] || lead.status) + (lead.reason ? ' (' + lead.reason + ')' : '');
        showLead(leadId, message(text, lead.status === 'delivered' ? 'ok' : lead.status === 'queued' ? '' : 'error'));
      });
    }
    check();
  }

  // ---- preview and test leads
  function showPreview() {
    var profiles = JSON.parse(document.getElementById('profiles').textContent);
    var profile = options(profiles, null, profiles[0]);
    var type = options(['application/json', 'application/x-www-form-urlencoded'], null, 'application/json');
    var body = el('textarea', { name: 'body', spellcheck: 'false', placeholder: '{"nome": "Ana Souza", "email": "ana@example.com"}' });
    var out = el('div');
    var form = el('form', { id: 'preview' }, [el('div', { class: 'fields' }, [field('Perfil', profile), field('Tipo do corpo', type)]),
      field('Corpo, como a plataforma envia', body),
      el('div', { class: 'actions' }, [el('button', { type: 'submit', text: 'Pré-visualizar' }),
        el('button', { type: 'button', class: 'plain', text: 'Enviar um lead de teste', onclick: function () {
          clear(out).appendChild(message('Enviando…'));
          api('POST', 'test-lead/' + encodeURIComponent(profile.value)).then(function (r) {
            var link = (r.leadIds || [])[0];
            clear(out).appendChild(message('A entrada respondeu ' + r.status + ': ' + JSON.stringify(r.answer), r.status < 300 ? 'ok' : 'error'));
            if (link) out.appendChild(el('p', {}, [el('a', { href: '#/lead/' + link, text: 'Acompanhar o lead de teste' })]));
          }).catch(function (e) { clear(out).appendChild(message(e.message, 'error')); });
        } })])]);
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      api('POST', 'preview/' + encodeURIComponent(profile.value), body.value, type.value).then(function (r) {
        clear(out);
        if (r.spam) out.appendChild(message('O campo isca (honeypot) veio preenchido: o lead seria descartado.', 'error'));
        r.leads.forEach(function (lead) {
          if (lead.pending) { out.appendChild(message(lead.note)); return; }
          out.appendChild(el('div', { class: 'card result' }, [
            lead.missing.length ? message('Seria parado: ' + lead.reason, 'error') : message('Seria enviado.', 'ok'),
            lead.branch ? branchLine(lead.branch) : null,
            el('h3', { text: 'Prospect' }), kv(Object.keys(lead.prospect).map(function (k) { return [k, lead.prospect[k]]; })),
            lead.warnings.length ? el('p', { class: 'muted', text: 'Avisos: ' + lead.warnings.join('; ') }) : null,
            lead.notices.length ? el('p', { class: 'muted', text: 'Conferir: ' + lead.notices.join('; ') }) : null]));
        });
      }).catch(function (e) { clear(out).appendChild(message(e.message, 'error')); });
    });
    clear(view).appendChild(el('h2', { text: 'Pré-visualizar um envio' }));
    view.appendChild(el('p', { class: 'muted', text: 'Nada é gravado nem enviado ao upstream na pré-visualização. O lead de teste percorre o caminho real e é entregue.' }));
    view.appendChild(el('div', { class: 'card' }, [form]));
    view.appendChild(out);
  }

  // ---- set-up kit
  function showSetup() {
    clear(view).appendChild(el('h2', { text: 'Como conectar cada plataforma' }));
    var box = el('div', {}, [message('Carregando…')]);
    view.appendChild(box);
    api('GET', 'setup').then(function (data) {
      clear(box).appendChild(el('p', { class: 'muted', text: 'Endereço de cada perfil: ' + data.urlPattern }));
      data.profiles.forEach(function (kit) {
        box.appendChild(el('div', { class: 'card' }, [el('h3', { text: kit.profile + ' · ' + kit.label }),
          el('p', {}, ['Endereço: ', el('code', { text: kit.url })]),
          el('ol', {}, kit.steps.map(function (s) { return el('li', { text: s }); })),
          kit.secrets.length ? el('ul', {}, kit.secrets.map(function (s) { return el('li', { text: s.key + ': ' + s.what + ' (' + s.where + ')' }); })) : null,
          kit.curl ? el('details', {}, [el('summary', { text: 'curl com um lead de exemplo' }), el('pre', { text: kit.curl })]) : null,
          kit.htmlForm ? el('details', {}, [el('summary', { text: 'Formulário HTML pronto' }), el('pre', { text: kit.htmlForm })]) : null,
          kit.notes.length ? el('ul', { class: 'muted' }, kit.notes.map(function (n) { return el('li', { text: n }); })) : null]));
      });
    }).catch(function (e) { clear(box).appendChild(message(e.message, 'error')); });
  }

  function route() {
    var hash = location.hash.replace(/^#/, '') || '/';
    var path = hash.split('?')[0];
    var params = new URLSearchParams(hash.split('?')[1] || '');
    var tab = path.indexOf('/lead/') === 0 || path === '/' ? 'leads' : path.slice(1);
    Array.prototype.forEach.call(document.querySelectorAll('nav a'), function (a) {
      a.className = a.getAttribute('data-tab') === tab ? 'on' : '';
    });
    loadHealth();
    if (path.indexOf('/lead/') === 0) showLead(decodeURIComponent(path.slice(6)));
    else if (path === '/preview') showPreview();
    else if (path === '/setup') showSetup();
    else showLeads(params);
    window.scrollTo(0, 0);
  }
  window.addEventListener('hashchange', route);
  route();
})();
`;

const hash = (text: string) => createHash('sha256').update(text, 'utf8').digest('base64');

/** The console's Content-Security-Policy: its own style and script, requests to this site. */
export const CONSOLE_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${hash(STYLE)}'`,
  `script-src 'sha256-${hash(SCRIPT)}'`,
  "connect-src 'self'",
  'img-src data:',
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const escapeHtml = (text: string) =>
  text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;');

/** JSON inside a `<script type="application/json">`: `<` escaped so it cannot close the tag. */
const jsonData = (value: unknown) => JSON.stringify(value).replaceAll('<', '\\u003c');

export interface ConsoleView {
  csrf: string;
  operator: string;
  profiles: readonly string[];
  statuses: readonly string[];
}

/** The console page (see the module comment). */
export function consolePage(view: ConsoleView): HttpResponse {
  const body = `<!doctype html>
<html lang="pt-BR">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="csrf-token" content="${escapeHtml(view.csrf)}">
<title>Console de leads</title>
<style>${STYLE}</style>
</head>
<body>
<header><div class="bar"><h1>Console de leads</h1>
<nav><a href="#/" data-tab="leads">Leads</a><a href="#/preview" data-tab="preview">Pré-visualizar</a><a href="#/setup" data-tab="setup">Conectar plataformas</a></nav>
<span class="who">${escapeHtml(view.operator)}</span></div></header>
<main>
<div class="health" id="health" aria-live="polite">Upstream: …</div>
<div id="view"><noscript>O console precisa de JavaScript. As mesmas operações estão na API (/admin/leads) e no comando npm run leads.</noscript></div>
</main>
<script type="application/json" id="profiles">${jsonData(view.profiles)}</script>
<script type="application/json" id="statuses">${jsonData(view.statuses)}</script>
<script>${SCRIPT}</script>
</body>
</html>
`;
  return {
    statusCode: 200,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'content-security-policy': CONSOLE_CSP,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'x-frame-options': 'DENY',
    },
    body,
  };
}
