/**
 * The console's script, first part (console-page.ts puts the parts together in one closure):
 * the helpers every view uses — building elements (text only, never HTML), the account's time
 * zone for every time shown, the calls to the admin routes with the CSRF token, a copy button,
 * a confirmation before anything done in bulk — and the health line that heads every view, in
 * the words of an operator (the gym's system answering or not; the leads wait in line).
 */
export const CONSOLE_SCRIPT_BASE = `
  var token = document.querySelector('meta[name="csrf-token"]').getAttribute('content');
  var base = location.pathname.replace(/\\/admin\\/?$/, '') + '/admin/';
  var view = document.getElementById('view');
  var PAGE = JSON.parse(document.getElementById('page-data').textContent);
  var LABELS = { queued: 'Na fila', delivered: 'Entregue', rejected: 'Recusado', dead: 'Esgotado',
    test: 'Teste', parked: 'Parado' };
  var HEALTH_REASONS = { unavailable: 'não responde', timeout: 'demorou demais para responder',
    unauthorized: 'recusou o usuário e a senha', 'rate-limited': 'pediu para esperar' };

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
  /** A time in the account's zone (the gym's clock), whatever the browser's zone is. */
  function when(iso) {
    if (!iso) return '';
    var d = new Date(iso);
    return isNaN(d) ? iso : d.toLocaleString('pt-BR', { dateStyle: 'short', timeStyle: 'short', timeZone: PAGE.timeZone });
  }
  function badge(status) { return el('span', { class: 'badge ' + status, text: LABELS[status] || status }); }
  function message(text, kind) { return el('div', { class: 'msg' + (kind ? ' ' + kind : ''), role: 'status', text: text }); }
  /** Which branch a lead goes to and why (an answer that named no branch is a warning). */
  function branchLine(branch) { var line = message(branch.text, branch.warning ? 'warn' : ''); line.className += ' branch'; return line; }

  function api(method, path, body, contentType) {
    var headers = { 'accept': 'application/json', 'accept-language': 'pt-BR' };
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
            throw new Error((error.message || ('Erro ' + response.status)) + (details.length ? ' (' + details.join('; ') + ')' : ''));
          }
          return data;
        });
      });
  }

  /** A button that copies \`text()\` and says so; the text is selected when the browser refuses. */
  function copyButton(text, label, target) {
    var button = el('button', { type: 'button', class: 'plain copy', text: label || 'Copiar' });
    button.addEventListener('click', function () {
      var value = typeof text === 'function' ? text() : text;
      var done = function () { button.textContent = 'Copiado ✓'; setTimeout(function () { button.textContent = label || 'Copiar'; }, 2500); };
      var select = function () {
        if (!target) return;
        var range = document.createRange();
        range.selectNodeContents(target);
        var sel = window.getSelection(); sel.removeAllRanges(); sel.addRange(range);
        button.textContent = 'Selecionado: copie com o menu';
      };
      if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(value).then(done, select);
      else select();
    });
    return button;
  }
  /** A value to paste, in a box that wraps on a phone, with its copy button. */
  function pasteBox(value, label) {
    var code = el('code', { class: 'paste', text: value });
    return el('div', { class: 'pastebox' }, [code, copyButton(function () { return code.textContent; }, label, code)]);
  }
  /** Asks before something done to many leads at once, or that cannot be undone. */
  function confirmed(question) { return window.confirm(question); }

  function loadHealth() {
    var box = document.getElementById('health');
    api('GET', 'upstream').then(function (h) {
      var open = h.circuit.state === 'open';
      clear(box).appendChild(el('span', {}, ['Sistema da academia: ', el('b', { class: open ? 'bad' : 'ok',
        text: open ? 'fora do ar — os leads esperam na fila e serão enviados quando voltar' : 'recebendo os leads' })]));
      if (open && h.circuit.reason) box.appendChild(el('span', { text: 'Motivo: ' + (HEALTH_REASONS[h.circuit.reason] || 'erro ao responder') }));
      if (open && h.circuit.nextProbeAt) box.appendChild(el('span', { text: 'Nova tentativa: ' + when(h.circuit.nextProbeAt) }));
      box.appendChild(el('span', { text: 'Leads a caminho: ' + (h.backlog || 0) }));
      if (h.circuit.lastSuccessAt) box.appendChild(el('span', { class: 'muted', text: 'Último envio bem-sucedido: ' + when(h.circuit.lastSuccessAt) }));
    }).catch(function (e) { clear(box).appendChild(el('span', { text: 'Sistema da academia: ' + e.message })); });
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
`;
