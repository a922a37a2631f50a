/**
 * `#/setup`: the set-up kit's index of profiles, and `#/setup/<profile>` one profile's kit: the
 * URL to paste with its copy button, where to paste it, its secrets revealed on request and
 * rotated where the gateway chooses them (secret-routes.ts), a test lead, a test from the
 * terminal and an HTML form.
 */
import { api, reason, when } from './api.ts';
import { clear, confirmed, copyButton, el, message, pasteBox, viewRoot } from './dom.ts';
import type { Kit, Revealed } from './page-data.ts';
import { sendTestLead } from './preview-view.ts';

function showKitIndex(kits: readonly Kit[]): void {
  const view = viewRoot();
  clear(view).appendChild(el('h2', { text: 'Conectar plataformas' }));
  view.appendChild(
    el('p', {
      class: 'muted',
      text: 'Cada perfil recebe os leads de uma plataforma. Escolha o perfil: o endereço a colar, onde colar e como testar estão na página dele.',
    }),
  );
  const list = el('ul', { class: 'kit-index' });
  for (const kit of kits) {
    list.appendChild(
      el('li', {}, [
        el('a', { href: `#/setup/${encodeURIComponent(kit.profile)}` }, [
          el('b', { text: kit.profile }),
          el('span', { class: 'muted', text: ` · ${kit.label}` }),
        ]),
      ]),
    );
  }
  view.appendChild(el('div', { class: 'card' }, [list]));
}

function secretsCard(kit: Kit, urlBox: HTMLElement): HTMLElement {
  const box = el('div', { class: 'secrets' });
  const path = `setup/${encodeURIComponent(kit.profile)}`;
  const rotate = (key: string) => {
    const question = `Gerar uma nova chave para ${kit.profile}? A atual continua valendo por 7 dias: cole a nova na plataforma nesse prazo.`;
    if (!confirmed(question)) return;
    api<{ previousUntil?: string }>('POST', `${path}/rotate`, { key })
      .then((r) =>
        api<Revealed>('POST', `${path}/reveal`).then((again) => {
          render(again);
          const said = `Nova chave criada. A anterior vale até ${when(r.previousUntil)}.`;
          box.insertBefore(message(said, 'ok'), box.firstChild);
        }),
      )
      .catch((e: unknown) => box.appendChild(message(reason(e), 'error')));
  };
  function render(data: Revealed): void {
    clear(box);
    clear(urlBox).appendChild(pasteBox(data.url, 'Copiar o endereço'));
    for (const s of data.secrets) {
      const what = kit.secrets.find((k) => k.key === s.key);
      box.appendChild(
        el('div', { class: 'secret', 'data-key': s.key }, [
          el('code', { class: 'key', text: s.key }),
          what ? el('p', { class: 'muted', text: what.what }) : null,
          s.value === null
            ? el('p', { class: 'msg error', text: 'Ainda não preenchida.' })
            : pasteBox(String(s.value), 'Copiar a chave'),
          s.rotatable
            ? el('button', {
                type: 'button',
                class: 'plain rotate',
                text: 'Trocar por uma nova',
                onclick: () => rotate(s.key),
              })
            : null,
        ]),
      );
    }
    for (const p of data.previous) {
      const text = `A chave anterior ("${p.key}") ainda é aceita até ${when(p.until)}.`;
      box.appendChild(el('p', { class: 'muted', text }));
    }
  }
  const reveal = el('button', {
    type: 'button',
    class: 'plain',
    id: 'reveal',
    text: 'Mostrar a chave secreta',
    onclick: () => {
      api<Revealed>('POST', `${path}/reveal`)
        .then(render)
        .catch((e: unknown) => clear(box).appendChild(message(reason(e), 'error')));
    },
  });
  box.appendChild(
    el(
      'ul',
      {},
      kit.secrets.map((s) => el('li', {}, [el('code', { text: s.key }), `: ${s.what}`])),
    ),
  );
  box.appendChild(el('p', { class: 'muted', text: `Onde fica: ${kit.secrets[0]?.where ?? ''}` }));
  box.appendChild(reveal);
  return el('div', { class: 'card' }, [el('h3', { text: 'Chave secreta' }), box]);
}

function testCard(kit: Kit): HTMLElement {
  const out = el('div');
  return el('div', { class: 'card' }, [
    el('h3', { text: 'Testar' }),
    el('p', {
      class: 'muted',
      id: 'test-lead-note',
      text: 'O lead de teste (Ana Teste) percorre o caminho real até o sistema da academia, com "LEAD DE TESTE — pode apagar." nas observações. Um lead que a própria plataforma marca como teste fica guardado sem envio, a não ser que o perfil tenha deliverTestLeads.',
    }),
    el('div', { class: 'actions' }, [
      el('button', {
        type: 'button',
        class: 'plain',
        id: 'send-test',
        text: 'Enviar um lead de teste',
        onclick: () => sendTestLead(kit.profile, out),
      }),
    ]),
    out,
    kit.curl
      ? el('details', {}, [
          el('summary', { text: 'Pelo terminal (curl)' }),
          el('pre', { text: kit.curl }),
          copyButton(kit.curl),
        ])
      : null,
    kit.htmlForm
      ? el('details', {}, [
          el('summary', { text: 'Formulário HTML pronto' }),
          el('pre', { text: kit.htmlForm }),
          copyButton(kit.htmlForm),
        ])
      : null,
  ]);
}

function showKit(kit: Kit): void {
  const view = viewRoot();
  clear(view).appendChild(
    el('p', {}, [el('a', { href: '#/setup', text: '← Todas as plataformas' })]),
  );
  view.appendChild(el('h2', { text: `${kit.profile} · ${kit.label}` }));
  const urlBox = el('div', { id: 'kit-url' }, [pasteBox(kit.url, 'Copiar o endereço')]);
  view.appendChild(
    el('div', { class: 'card' }, [
      el('h3', { text: 'Endereço para colar na plataforma' }),
      urlBox,
      el('h3', { text: 'Onde colar' }),
      el(
        'ol',
        {},
        kit.steps.map((s) => el('li', { text: s })),
      ),
    ]),
  );
  if (kit.secrets.length) view.appendChild(secretsCard(kit, urlBox));
  view.appendChild(testCard(kit));
  if (kit.notes.length) {
    view.appendChild(
      el('div', { class: 'card' }, [
        el('h3', { text: 'Bom saber' }),
        el(
          'ul',
          { class: 'muted' },
          kit.notes.map((n) => el('li', { text: n })),
        ),
      ]),
    );
  }
}

export function showSetup(profile: string): void {
  const view = viewRoot();
  clear(view).appendChild(message('Carregando…'));
  api<{ profiles: Kit[] }>('GET', 'setup')
    .then((data) => {
      const kit = data.profiles.find((k) => k.profile === profile);
      if (kit) showKit(kit);
      else showKitIndex(data.profiles);
    })
    .catch((e: unknown) => clear(view).appendChild(message(reason(e), 'error')));
}
