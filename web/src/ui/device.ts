// "#/device": a signed-in player approves (or refuses) the sign-in of a
// device without a browser of its own, `tabuleiro login` in a terminal
// (lobby.v1 ApproveDeviceSignIn, RFC 8628's verification page). The
// device shows a code; the page takes it typed, or filled in from the
// link's ?code=.
import { api, errorText } from "../api";
import { t } from "../i18n";
import type { Identity } from "../session";
import { h } from "./dom";

/** Frame is what the page needs of the shell: its frame. */
export type Frame = (id: Identity | undefined, ...content: Node[]) => void;

/** deviceScreen is "#/device?code=XXXX-XXXX". */
export function deviceScreen(frame: Frame, id: Identity, code: string): void {
  const here = "#/device" + (code ? `?code=${encodeURIComponent(code)}` : "");
  if (!id.username) {
    frame(id, h("section", { class: "panel account" },
      h("h1", {}, t("device.title")),
      h("p", { class: "lead", id: "device-need-account" }, t("device.needAccount")),
      h("p", {}, h("a", { class: "button primary", id: "device-login", href: `#/login?next=${encodeURIComponent(here)}` }, t("account.signIn")),
        " ", h("a", { class: "button", id: "device-claim", href: "#/account" }, t("account.claim")))));
    return;
  }
  const err = h("p", { class: "error", id: "device-error", role: "alert" });
  const result = h("p", { class: "lead", id: "device-result", role: "status" });
  const input = h("input", { id: "device-code", name: "device-code", required: true, autocomplete: "one-time-code",
    autocapitalize: "characters", spellcheck: "false", maxlength: 12, placeholder: t("device.codePlaceholder"), value: code }) as HTMLInputElement;
  const answer = async (deny: boolean) => {
    err.textContent = "";
    result.textContent = "";
    try {
      const r = await api(id.token).lobby.approveDeviceSignIn({ userCode: input.value.trim(), deny });
      const device = r.device || t("account.unknownDevice");
      result.textContent = deny ? t("device.denied", { device }) : t("device.approved", { device, username: id.username ?? "" });
      form.hidden = true;
    } catch (e) {
      err.textContent = errorText(e);
      input.select();
    }
  };
  const form = h("form", { class: "account-form", id: "device-form", novalidate: true, onsubmit: (e: Event) => {
    e.preventDefault();
    void answer(false);
  } },
  h("div", { class: "field" }, h("label", { for: "device-code" }, t("device.code")), input),
  h("p", { class: "muted" }, t("device.check")),
  h("button", { type: "submit", class: "primary", id: "device-approve" }, t("device.approve")), " ",
  h("button", { type: "button", id: "device-deny", onclick: () => void answer(true) }, t("device.deny")));
  frame(id, h("section", { class: "panel account" },
    h("h1", {}, t("device.title")),
    h("p", { class: "lead" }, t("device.lead", { username: id.username })),
    form, result, err));
  setTimeout(() => input.focus(), 0);
}
