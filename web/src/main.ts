// The web client's entry point: styles, then the router.
import "./styles.css";
import { route_ } from "./ui/app";

window.addEventListener("hashchange", () => void route_());
void route_();
