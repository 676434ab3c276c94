// Package lobby will hold the lobby service: guests, rooms, matchmaking,
// ratings and history (issue 7). Until then the module only reserves its
// place in the workspace.
package lobby
