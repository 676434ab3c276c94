// Package bot will hold the bot service: stateless ply selection at several
// levels (issue 5). Until then the module only reserves its place in the
// workspace.
package bot
