// error.html: a page that could not be shown (a bad game link). Its message is the server's, in
// the language the pages chose; switching the language asks the server for it again.
import { initPage } from "./page.js";

initPage();
window.addEventListener("langchange", () => location.reload());
