// Package bot is the bot service (issue 5): stateless ply selection for
// Quoridor, Corners and Banqi at four levels, from a seat's view only.
//
// The tree:
//   - internal/search: game-agnostic greedy, alpha-beta and iterative
//     deepening search with a transposition table, a deadline, and
//     expectimax chance nodes for Banqi's reveals;
//   - internal/player: the levels (easy, medium, hard, expert) and each
//     game's adapter and evaluation over the engine's fast types;
//   - internal/rpc: the tabuleiro.bot.v1.BotService handler, the API view
//     to engine view conversion and the one error-to-status mapping;
//   - botserver: configuration (BOT_*), authentication policy and the
//     server runner, for cmd/bot and the one-process mode;
//   - tournament: level-against-level matches through the engine and the
//     round-robin ladder (Bradley–Terry ratings), for `tabuleiro bots` and
//     `tabuleiro bots ladder`; it also plays frozen past experts
//     (expert-1) and the Quoridor sparring racer (racer), which the
//     service never offers.
package bot
