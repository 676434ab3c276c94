// Package match will hold the match service: the authority on games in
// progress (issue 4). Until then the module only reserves its place in the
// workspace.
package match
