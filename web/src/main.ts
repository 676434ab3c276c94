// The web client's entry point: styles, the page's language, then the router.
import "./styles.css";
import { applyDocument, onLanguage, t } from "./i18n";
import { route_ } from "./ui/app";

/** describe puts the page's language on <html lang> and its description in the player's words. */
function describe(): void {
  applyDocument();
  document.querySelector('meta[name="description"]')?.setAttribute("content", t("meta.description"));
}
describe();
onLanguage(describe);

window.addEventListener("hashchange", () => void route_());
void route_();
