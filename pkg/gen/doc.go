// Package gen is the root of the Go code generated from proto/ by buf; the
// generated packages live below it (tabuleiro/<area>/v1, imported as
// gamev1, matchv1, lobbyv1, botv1) and are never edited by hand.
// Regenerate from the repository root with `buf generate`.
package gen
