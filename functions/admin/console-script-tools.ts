/**
 * The console's script, the tools (console-page.ts puts the parts together): `#/preview` (a
 * body mapped as a platform would send it, nothing stored; a test lead through the real path,
 * answered with a link to the lead it became, whatever the platform answered), `#/setup` the
 * set-up kit's index of profiles and `#/setup/<profile>` one profile's kit: the URL to paste with
 * its copy button, where to paste it, its secrets revealed on request and rotated where the
 * gateway chooses them (secret-routes.ts), a test from the terminal and an HTML form; and the
 * router over the address's `#` part.
 */
export const CONSOLE_SCRIPT_TOOLS = `
  /** Sends the profile's test lead, then links to the lead it became (found by its e-mail). */
  function sendTestLead(profile, out) {
    clear(out).appendChild(message('Enviando…'));
    return api('POST', 'test-lead/' + encodeURIComponent(profile)).then(function (r) {
      var ok = r.status < 300;
      clear(out).appendChild(message(ok ? 'Lead de teste recebido pela entrada de leads.' : 'A entrada recusou o lead de teste (erro ' + r.status + ').', ok ? 'ok' : 'error'));
      if (!ok && r.answer && r.answer.error) out.appendChild(el('p', { class: 'muted', text: r.answer.error.message || '' }));
      var link = el('p', { class: 'test-lead-link' });
      out.appendChild(link);
      var show = function (id) { clear(link).appendChild(el('a', { class: 'button', href: '#/lead/' + id, text: 'Abrir o lead de teste' })); };
      if ((r.leadIds || [])[0]) { show(r.leadIds[0]); return; }
      if (!ok || !r.search) return;
      var tries = 0;
      (function find() {
        api('GET', 'leads?order=newest&limit=5&profile=' + encodeURIComponent(profile) + '&q=' + encodeURIComponent(r.search)).then(function (data) {
          if (data.leads[0]) show(data.leads[0].leadId);
          else if (tries++ < 20) setTimeout(find, 500);
          else link.textContent = 'O lead de teste ainda não apareceu na lista de leads.';
        });
      })();
    }).catch(function (e) { clear(out).appendChild(message(e.message, 'error')); });
  }

  function showPreview() {
    var profile = options(PAGE.profiles, null, PAGE.profiles[0]);
    var type = options(['application/json', 'application/x-www-form-urlencoded'], { 'application/json': 'JSON', 'application/x-www-form-urlencoded': 'Formulário (campo=valor)' }, 'application/json');
    var body = el('textarea', { name: 'body', spellcheck: 'false', placeholder: '{"nome": "Ana Souza", "email": "ana@example.com"}' });
    var out = el('div');
    var form = el('form', { id: 'preview' }, [el('div', { class: 'fields' }, [field('Perfil', profile), field('Formato', type)]),
      field('Conteúdo, como a plataforma envia', body),
      el('div', { class: 'actions' }, [el('button', { type: 'submit', text: 'Ver como ficaria' }),
        el('button', { type: 'button', class: 'plain', id: 'send-test', text: 'Enviar um lead de teste', onclick: function () { sendTestLead(profile.value, out); } })])]);
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      api('POST', 'preview/' + encodeURIComponent(profile.value), body.value, type.value).then(function (r) {
        clear(out);
        if (r.spam) out.appendChild(message('O campo isca (contra robôs) veio preenchido: o lead seria descartado.', 'error'));
        r.leads.forEach(function (lead) {
          if (lead.pending) { out.appendChild(message(lead.note)); return; }
          out.appendChild(el('div', { class: 'card result' }, [
            lead.missing.length ? message('Seria parado: ' + lead.reason, 'error') : message('Seria enviado.', 'ok'),
            lead.branch ? branchLine(lead.branch) : null,
            el('h3', { text: 'Cadastro' }), prospectList(lead.prospect),
            lead.warnings.length ? el('p', { class: 'muted', text: 'Avisos: ' + lead.warnings.join('; ') }) : null,
            lead.notices.length ? el('p', { class: 'muted', text: 'Conferir: ' + lead.notices.join('; ') }) : null]));
        });
      }).catch(function (e) { clear(out).appendChild(message(e.message, 'error')); });
    });
    clear(view).appendChild(el('h2', { text: 'Testar um envio' }));
    view.appendChild(el('p', { class: 'muted', text: 'Em "Ver como ficaria" nada é gravado nem enviado ao sistema da academia. O lead de teste percorre o caminho real e é entregue com "LEAD DE TESTE — pode apagar." nas observações.' }));
    view.appendChild(el('div', { class: 'card' }, [form]));
    view.appendChild(out);
  }

  // ---- the set-up kit
  function showKitIndex(kits) {
    clear(view).appendChild(el('h2', { text: 'Conectar plataformas' }));
    view.appendChild(el('p', { class: 'muted', text: 'Cada perfil recebe os leads de uma plataforma. Escolha o perfil: o endereço a colar, onde colar e como testar estão na página dele.' }));
    var list = el('ul', { class: 'kit-index' });
    kits.forEach(function (kit) {
      list.appendChild(el('li', {}, [el('a', { href: '#/setup/' + encodeURIComponent(kit.profile) }, [el('b', { text: kit.profile }), el('span', { class: 'muted', text: ' · ' + kit.label })])]));
    });
    view.appendChild(el('div', { class: 'card' }, [list]));
  }

  function secretsCard(kit, urlBox) {
    var box = el('div', { class: 'secrets' });
    var reveal = el('button', { type: 'button', class: 'plain', id: 'reveal', text: 'Mostrar a chave secreta' });
    function render(data) {
      clear(box);
      clear(urlBox).appendChild(pasteBox(data.url, 'Copiar o endereço'));
      data.secrets.forEach(function (s) {
        var what = kit.secrets.filter(function (k) { return k.key === s.key; })[0];
        box.appendChild(el('div', { class: 'secret', 'data-key': s.key }, [el('code', { class: 'key', text: s.key }),
          what ? el('p', { class: 'muted', text: what.what }) : null,
          s.value === null ? el('p', { class: 'msg error', text: 'Ainda não preenchida.' }) : pasteBox(String(s.value), 'Copiar a chave'),
          s.rotatable ? el('button', { type: 'button', class: 'plain rotate', text: 'Trocar por uma nova', onclick: function () {
            if (!confirmed('Gerar uma nova chave para ' + kit.profile + '? A atual continua valendo por 7 dias: cole a nova na plataforma nesse prazo.')) return;
            api('POST', 'setup/' + encodeURIComponent(kit.profile) + '/rotate', { key: s.key }).then(function (r) {
              return api('POST', 'setup/' + encodeURIComponent(kit.profile) + '/reveal').then(function (again) {
                render(again);
                box.insertBefore(message('Nova chave criada. A anterior vale até ' + when(r.previousUntil) + '.', 'ok'), box.firstChild);
              });
            }).catch(function (e) { box.appendChild(message(e.message, 'error')); });
          } }) : null]));
      });
      data.previous.forEach(function (p) { box.appendChild(el('p', { class: 'muted', text: 'A chave anterior ("' + p.key + '") ainda é aceita até ' + when(p.until) + '.' })); });
    }
    reveal.addEventListener('click', function () {
      api('POST', 'setup/' + encodeURIComponent(kit.profile) + '/reveal').then(render)
        .catch(function (e) { clear(box).appendChild(message(e.message, 'error')); });
    });
    box.appendChild(el('ul', {}, kit.secrets.map(function (s) { return el('li', {}, [el('code', { text: s.key }), ': ' + s.what]); })));
    box.appendChild(el('p', { class: 'muted', text: 'Onde fica: ' + (kit.secrets[0] ? kit.secrets[0].where : '') }));
    box.appendChild(reveal);
    return el('div', { class: 'card' }, [el('h3', { text: 'Chave secreta' }), box]);
  }

  function showKit(kit) {
    clear(view).appendChild(el('p', {}, [el('a', { href: '#/setup', text: '← Todas as plataformas' })]));
    view.appendChild(el('h2', { text: kit.profile + ' · ' + kit.label }));
    var urlBox = el('div', { id: 'kit-url' }, [pasteBox(kit.url, 'Copiar o endereço')]);
    view.appendChild(el('div', { class: 'card' }, [el('h3', { text: 'Endereço para colar na plataforma' }), urlBox,
      el('h3', { text: 'Onde colar' }), el('ol', {}, kit.steps.map(function (s) { return el('li', { text: s }); }))]));
    if (kit.secrets.length) view.appendChild(secretsCard(kit, urlBox));
    var out = el('div');
    view.appendChild(el('div', { class: 'card' }, [el('h3', { text: 'Testar' }),
      el('p', { class: 'muted', id: 'test-lead-note', text: 'O lead de teste (Ana Teste) percorre o caminho real até o sistema da academia, com "LEAD DE TESTE — pode apagar." nas observações. Um lead que a própria plataforma marca como teste fica guardado sem envio, a não ser que o perfil tenha deliverTestLeads.' }),
      el('div', { class: 'actions' }, [el('button', { type: 'button', class: 'plain', id: 'send-test', text: 'Enviar um lead de teste', onclick: function () { sendTestLead(kit.profile, out); } })]), out,
      kit.curl ? el('details', {}, [el('summary', { text: 'Pelo terminal (curl)' }), el('pre', { text: kit.curl }), copyButton(kit.curl)]) : null,
      kit.htmlForm ? el('details', {}, [el('summary', { text: 'Formulário HTML pronto' }), el('pre', { text: kit.htmlForm }), copyButton(kit.htmlForm)]) : null]));
    if (kit.notes.length) view.appendChild(el('div', { class: 'card' }, [el('h3', { text: 'Bom saber' }), el('ul', { class: 'muted' }, kit.notes.map(function (n) { return el('li', { text: n }); }))]));
  }

  function showSetup(profile) {
    clear(view).appendChild(message('Carregando…'));
    api('GET', 'setup').then(function (data) {
      var kit = data.profiles.filter(function (k) { return k.profile === profile; })[0];
      if (kit) showKit(kit); else showKitIndex(data.profiles);
    }).catch(function (e) { clear(view).appendChild(message(e.message, 'error')); });
  }

  function route() {
    var hash = location.hash.replace(/^#/, '') || '/';
    var path = hash.split('?')[0];
    var params = new URLSearchParams(hash.split('?')[1] || '');
    var tab = path.indexOf('/lead/') === 0 || path === '/' ? 'leads' : path.split('/')[1];
    Array.prototype.forEach.call(document.querySelectorAll('nav a'), function (a) {
      a.className = a.getAttribute('data-tab') === tab ? 'on' : '';
    });
    loadHealth();
    if (path.indexOf('/lead/') === 0) showLead(decodeURIComponent(path.slice(6)));
    else if (path === '/preview') showPreview();
    else if (path.indexOf('/setup') === 0) showSetup(decodeURIComponent(path.slice(7)));
    else showLeads(params);
    window.scrollTo(0, 0);
  }
  window.addEventListener('hashchange', route);
  route();
`;
