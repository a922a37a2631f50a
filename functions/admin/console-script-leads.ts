/**
 * The console's script, the leads (console-page.ts puts the parts together): `#/` the list with
 * its filters, the parked ones as a CSV and the resend of the exhausted ones (asked for
 * confirmation first); `#/lead/<id>` one lead: its timeline, what the person sent, the Prospect
 * it became in Portuguese words, and the correction form a phone can fill: `tel`, `email` and
 * numeric keyboards, the DDI 55 unless typed, the branch chosen by name among the branches of
 * the lead's own account (`branchChoices` in the lead's view: configured and learned, never
 * another account's; a number where none are named), the fields the upstream requires marked
 * (domain/prospect.ts REQUIRED_PROSPECT_FIELDS) and, for a lead with a phone and no e-mail, the
 * profile's `emailPlaceholder` suggested.
 */
import { EMAIL_PLACEHOLDER_HINT, REQUIRED_PROSPECT_FIELDS } from '../domain/prospect.ts';

const REQUIRED = Object.fromEntries(REQUIRED_PROSPECT_FIELDS.map((field) => [field, true]));

export const CONSOLE_SCRIPT_LEADS = `
  /** The fields the academy's system requires: marked in the correction form. */
  var REQUIRED = ${JSON.stringify(REQUIRED)};
  var PLACEHOLDER_HINT = ${JSON.stringify(`Sem e-mail? ${EMAIL_PLACEHOLDER_HINT[0]?.toUpperCase()}${EMAIL_PLACEHOLDER_HINT.slice(1)}.`)};
  /** The Prospect's fields as an operator calls them (the upstream's keys stay in the API). */
  var PROSPECT_LABELS = { name: 'Nome', lastName: 'Sobrenome', email: 'E-mail', ddi: 'DDI (país)',
    cellphone: 'Celular com DDD', idBranch: 'Unidade', cpf: 'CPF', rg: 'RG', birthday: 'Nascimento',
    gender: 'Sexo', visit: 'Visita', marketingType: 'Origem do lead', notes: 'Observações',
    currentStep: 'Etapa', temperature: 'Temperatura', interests: 'Interesses',
    financiallyResponsible: 'Responsável financeiro', additionalFieldName: 'Campo adicional',
    additionalFieldValue: 'Valor do campo adicional', validateCpfDuplication: 'Conferir CPF repetido' };
  var HIDDEN_PROSPECT = { tokenPartner: true };
  /** The form: key, label, input type, keyboard, autocomplete. */
  var EDITABLE = [['name', 'Nome', 'text', 'text', 'given-name'], ['lastName', 'Sobrenome', 'text', 'text', 'family-name'],
    ['email', 'E-mail', 'email', 'email', 'email'], ['ddi', 'DDI (55 é o Brasil)', 'tel', 'numeric', 'tel-country-code'],
    ['cellphone', 'Celular com DDD', 'tel', 'tel', 'tel-national'], ['idBranch', 'Unidade', 'branch', 'numeric', 'off'],
    ['cpf', 'CPF', 'text', 'numeric', 'off'], ['marketingType', 'Origem do lead', 'text', 'text', 'off']];

  /** The branches of the lead on the page (its own account's), by name. */
  var LEAD_BRANCHES = [];
  function branchName(id) {
    var found = LEAD_BRANCHES.filter(function (b) { return String(b.idBranch) === String(id); })[0];
    return found ? found.name + ' (' + id + ')' : id;
  }
  function prospectValue(key, value) {
    if (key === 'idBranch') return branchName(value);
    if (typeof value === 'boolean') return value ? 'sim' : 'não';
    return typeof value === 'object' ? JSON.stringify(value) : String(value);
  }
  function kv(pairs) {
    var dl = el('dl', { class: 'kv' });
    pairs.forEach(function (pair) {
      if (pair[1] === undefined || pair[1] === null || pair[1] === '') return;
      dl.appendChild(el('dt', { text: pair[0] }));
      dl.appendChild(el('dd', { text: typeof pair[1] === 'object' ? JSON.stringify(pair[1]) : String(pair[1]) }));
    });
    return dl;
  }
  function prospectList(prospect) {
    return kv(Object.keys(prospect).filter(function (k) { return !HIDDEN_PROSPECT[k]; }).map(function (k) {
      return [PROSPECT_LABELS[k] || k, prospectValue(k, prospect[k])];
    }));
  }

  function showLeads(params) {
    var status = options(PAGE.statuses, LABELS, params.get('status') || '', 'Todas');
    status.name = 'status';
    var profile = options(PAGE.profiles, null, params.get('profile') || '', 'Todos');
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
    var csv = el('a', { class: 'button plain', href: base + 'leads.csv?status=parked', download: '', text: 'Exportar parados (planilha CSV)' });
    var replayNote = el('div');
    var replay = el('button', { class: 'plain', type: 'button', text: 'Reenviar todos os esgotados', onclick: function () {
      if (!confirmed('Reenviar todos os leads esgotados ao sistema da academia? Cada um volta para a fila e é enviado de novo.')) return;
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

  function timelineOf(lead) {
    var timeline = el('ol', { class: 'timeline' }, [el('li', { text: 'Recebido ' + when(lead.receivedAt) + ' pelo perfil ' + lead.profile })]);
    var add = function (text, cls) { timeline.appendChild(el('li', cls ? { class: cls, text: text } : { text: text })); };
    if (lead.correctedAt) add('Corrigido por ' + lead.correctedBy + ' em ' + when(lead.correctedAt));
    if (lead.attempts || lead.tries) add('Tentativas de envio: ' + (lead.tries || lead.attempts));
    if (lead.lastError) add('Último erro: ' + lead.lastError);
    if (lead.reason) add((lead.status === 'parked' ? 'Parado: ' : 'Motivo: ') + lead.reason);
    (lead.messages || []).forEach(function (m) { add('Resposta do sistema da academia: ' + m); });
    if (lead.nextAttemptAt) add('Próxima tentativa: ' + when(lead.nextAttemptAt));
    if (lead.status === 'delivered') add('Entregue ' + when(lead.deliveredAt) + ' como prospect ' + lead.idProspect, 'delivered');
    return timeline;
  }

  /** The input of one editable field: the keyboard a phone should open, the branch by name. */
  function editInput(spec, value) {
    var key = spec[0], shown = value === undefined || value === null ? '' : String(value);
    if (key === 'ddi' && shown === '') shown = '55';
    if (spec[2] === 'branch' && LEAD_BRANCHES.length) {
      var ids = LEAD_BRANCHES.map(function (b) { return String(b.idBranch); });
      var names = {};
      LEAD_BRANCHES.forEach(function (b) { names[String(b.idBranch)] = b.name; });
      if (shown && ids.indexOf(shown) < 0) { ids.push(shown); names[shown] = 'Unidade ' + shown; }
      var select = options(ids, names, shown, 'Escolha a unidade');
      select.name = key;
      return select;
    }
    var type = spec[2] === 'branch' ? 'text' : spec[2];
    return el('input', { name: key, type: type, inputmode: spec[3], autocomplete: spec[4], value: shown });
  }

  function correctionForm(leadId, prospect, result, retry) {
    var inputs = {};
    var fields = el('div', { class: 'fields' }, EDITABLE.map(function (spec) {
      inputs[spec[0]] = editInput(spec, prospect[spec[0]]);
      if (REQUIRED[spec[0]]) inputs[spec[0]].setAttribute('aria-required', 'true');
      return field(spec[1] + (REQUIRED[spec[0]] ? ' (obrigatório)' : ''), inputs[spec[0]]);
    }));
    var phoneOnly = !prospect.email && prospect.cellphone;
    var form = el('form', { id: 'correct' }, [el('h3', { text: 'Corrigir e reenviar' }),
      el('p', { class: 'muted', text: 'Preencha o que falta ou corrija; a correção vale em todo envio deste lead. Os campos marcados (obrigatório) são exigidos pelo sistema da academia.' }),
      phoneOnly ? el('p', { class: 'muted', id: 'email-placeholder-hint', text: PLACEHOLDER_HINT }) : null, fields,
      el('div', { class: 'actions' }, [el('button', { type: 'submit', text: 'Salvar e reenviar' })])]);
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      var change = {};
      EDITABLE.forEach(function (spec) {
        var key = spec[0], typedValue = inputs[key].value.trim();
        var before = prospect[key] === undefined || prospect[key] === null ? '' : String(prospect[key]);
        if (typedValue === before) return;
        if (key === 'ddi' && before === '' && typedValue === '55' && !inputs.cellphone.value.trim()) return;
        change[key] = typedValue === '' ? null : (key === 'idBranch' ? Number(typedValue) : typedValue);
      });
      if (change.cellphone && change.ddi === undefined) change.ddi = prospect.ddi || inputs.ddi.value.trim() || '55';
      form.querySelector('button').disabled = true;
      api('PATCH', 'leads/' + encodeURIComponent(leadId), { prospect: change })
        .then(retry)
        .catch(function (e) { clear(result).appendChild(message(e.message, 'error')); form.querySelector('button').disabled = false; });
    });
    return form;
  }

  /** Moving the lead to another profile of its source (its own left the configuration). */
  function moveForm(leadId, lead, result) {
    var select = options(lead.moveTo, null, '', 'Escolha o perfil');
    select.name = 'profile';
    var form = el('form', { id: 'move' }, [el('h3', { text: 'Mover para outro perfil' }),
      el('p', { class: 'muted', text: lead.profileGone ? 'O perfil ' + lead.profile + ' saiu da configuração: mova o lead para um perfil da mesma origem e ele é enviado por ele.' : 'O lead passa a ser enviado pelo perfil escolhido (mesma origem).' }),
      field('Perfil', select), el('div', { class: 'actions' }, [el('button', { type: 'submit', text: 'Mover' })])]);
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      if (!select.value) return;
      form.querySelector('button').disabled = true;
      api('PATCH', 'leads/' + encodeURIComponent(leadId), { profile: select.value })
        .then(function (moved) { return moved.status === 'queued' ? follow(leadId) : showLead(leadId, message('Movido para o perfil ' + select.value + '.', 'ok')); })
        .catch(function (e) { clear(result).appendChild(message(e.message, 'error')); form.querySelector('button').disabled = false; });
    });
    return form;
  }

  function showLead(leadId, notice) {
    clear(view).appendChild(el('p', {}, [el('a', { href: '#/', text: '← Leads' })]));
    var box = el('div', {}, [message('Carregando…')]);
    view.appendChild(box);
    api('GET', 'leads/' + encodeURIComponent(leadId)).then(function (lead) {
      clear(box);
      LEAD_BRANCHES = lead.branchChoices || [];
      var c = lead.contact || {};
      box.appendChild(el('h2', {}, [(c.name || lead.leadId) + ' ', badge(lead.status)]));
      if (notice) box.appendChild(notice);
      box.appendChild(el('div', { class: 'card' }, [el('h3', { text: 'Linha do tempo' }), timelineOf(lead), el('p', { class: 'muted', text: lead.leadId })]));
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
      if (sent.prospect) Object.keys(sent.prospect).forEach(function (k) { answers.appendChild(el('tr', {}, [el('th', { text: PROSPECT_LABELS[k] || k }), el('td', { text: prospectValue(k, sent.prospect[k]) })])); });
      var typed = el('div', { class: 'card', id: 'submitted' }, [el('h3', { text: 'O que a pessoa enviou' }), el('table', {}, [answers]),
        Object.keys(sent.attribution || {}).length ? el('h3', { text: 'Origem' }) : null,
        kv(Object.keys(sent.attribution || {}).map(function (k) { return [k, sent.attribution[k]]; }))]);
      var prospect = lead.prospect || {};
      var mapped = el('div', { class: 'card', id: 'prospect' }, [el('h3', { text: 'O cadastro enviado ao sistema da academia' }), prospectList(prospect)]);
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
      if (lead.correctable) box.appendChild(el('div', { class: 'card' }, [correctionForm(leadId, prospect, result, retry), actions, result]));
      else if (actions.firstChild) box.appendChild(el('div', { class: 'card' }, [actions, result]));
      if (lead.moveTo && (lead.correctable || lead.profileGone)) box.appendChild(el('div', { class: 'card' }, [moveForm(leadId, lead, result)]));
    }).catch(function (e) { clear(box).appendChild(message(e.message, 'error')); });
  }

  /** After a resend: the lead's page again, followed until it leaves the queue. */
  function follow(leadId) {
    var tries = 0;
    function check() {
      api('GET', 'leads/' + encodeURIComponent(leadId)).then(function (lead) {
        if (lead.status === 'queued' && tries++ < 30 && location.hash === '#/lead/' + leadId) { setTimeout(check, 1000); return; }
        var text = lead.status === 'delivered' ? 'Entregue como prospect ' + lead.idProspect + '.' :
          lead.status === 'queued' ? 'Na fila: será enviado assim que o sistema da academia permitir.' : 'Situação: ' + (LABELS[lead.status] || lead.status) + (lead.reason ? ' (' + lead.reason + ')' : '');
        showLead(leadId, message(text, lead.status === 'delivered' ? 'ok' : lead.status === 'queued' ? '' : 'error'));
      });
    }
    check();
  }
`;
