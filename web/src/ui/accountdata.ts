// The account's data on "#/account": download it (lobby.v1
// ExportAccountData: a zip of profile.json and one record per game) and
// delete the account (DeleteAccount, after its password). The shell's
// account page appends dataSection.
import { api, errorText } from "../api";
import { t } from "../i18n";
import type { Identity } from "../session";
import { h } from "./dom";

/** dataSection is the account page's "Your data" part; signedOut runs once the account is deleted. */
export function dataSection(id: Identity, signedOut: () => void): HTMLElement {
  const err = h("p", { class: "error", id: "data-error", role: "alert" });
  const download = h("button", { id: "data-download", onclick: async () => {
    err.textContent = "";
    try {
      const r = await api(id.token).lobby.exportAccountData({});
      const url = URL.createObjectURL(new Blob([r.zip as BlobPart], { type: "application/zip" }));
      const a = h("a", { href: url, download: r.filename }) as HTMLAnchorElement;
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
    } catch (e) {
      err.textContent = errorText(e);
    }
  } }, t("data.download"));
  const pw = h("input", { id: "delete-password", type: "password", autocomplete: "current-password", maxlength: 128, required: true }) as HTMLInputElement;
  const form = h("form", { class: "account-form", id: "delete-form", novalidate: true, onsubmit: async (e: Event) => {
    e.preventDefault();
    err.textContent = "";
    if (!confirm(t("data.deleteConfirm"))) return;
    try {
      await api(id.token).lobby.deleteAccount({ password: pw.value });
    } catch (e2) {
      err.textContent = errorText(e2);
      pw.select();
      return;
    }
    signedOut();
  } },
  h("div", { class: "field" }, h("label", { for: "delete-password" }, t("account.password")), pw),
  h("button", { type: "submit", class: "danger", id: "delete-account" }, t("data.delete")));
  return h("div", { class: "account-data" },
    h("h2", {}, t("data.title")),
    h("p", { class: "muted" }, t("data.downloadLead")), download,
    h("h2", {}, t("data.deleteTitle")),
    h("p", { class: "muted" }, t("data.deleteLead")), form, err);
}
