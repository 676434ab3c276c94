// Package docs holds Tabuleiro's documentation: the players', developers'
// and API guides beside this file, and the rules of every game in package
// rules. Its tests check what a reader meets first: the README's length and
// its two commands, and that every relative link in the repository's
// Markdown leads to a file and heading that exist.
package docs
