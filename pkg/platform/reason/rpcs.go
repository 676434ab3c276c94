package reason

// ReturnedBy lists, for each reason, the RPCs that may answer it, as
// "Service.Method" or "Service.*" (every method of the service) or "*"
// (every RPC): the table of docs/api.md is generated from it and the
// registry (TestAPIDocTable). A new reason needs its entry here.
var ReturnedBy = map[string][]string{
	RateLimited:      {"*"},
	Unavailable:      {"*"},
	TokenMissing:     {"*"},
	TokenExpired:     {"*", "LobbyService.RefreshToken"},
	TokenInvalid:     {"*", "LobbyService.RefreshToken"},
	SessionRevoked:   {"LobbyService.*"},
	ServiceOnly:      {"MatchService.CreateMatch", "MatchService.ListMatches", "BotService.SelectPly", "BotService.ReviewGame"},
	MalformedRequest: {"*"},
	InvalidRequest:   {"LobbyService.*", "MatchService.*", "BotService.SelectPly", "BotService.ReviewGame"},
	NotFound:         {"LobbyService.JoinRoom", "LobbyService.GetInvite", "LobbyService.LeaveRoom", "LobbyService.WatchRoom", "LobbyService.GetGame", "LobbyService.ReviewGame", "LobbyService.GetStats", "LobbyService.OfferRematch", "LobbyService.DeclineRematch", "LobbyService.WatchRematch"},
	PermissionDenied: {"LobbyService.WatchRoom", "LobbyService.OfferRematch", "LobbyService.DeclineRematch", "LobbyService.WatchRematch", "LobbyService.SetDisplayName"},
	NotNow:           {"LobbyService.CreateRoom", "LobbyService.JoinRoom", "LobbyService.LeaveRoom", "LobbyService.FindMatch", "LobbyService.PlayBot", "LobbyService.OfferRematch", "LobbyService.ReviewGame"},
	LimitReached:     {"LobbyService.CreateRoom", "LobbyService.JoinRoom", "MatchService.InviteSpectator"},
	Draining:         {"MatchService.Play", "MatchService.Follow", "MatchService.Watch"},

	RoomPasswordNeeded: {"LobbyService.JoinRoom", "LobbyService.WatchRoom"},
	RoomPasswordWrong:  {"LobbyService.JoinRoom", "LobbyService.WatchRoom"},
	AlreadyInMatch:     {"LobbyService.CreateRoom", "LobbyService.JoinRoom", "LobbyService.FindMatch", "LobbyService.PlayBot", "LobbyService.OfferRematch"},
	TicketReplaced:     {"LobbyService.FindMatch"},
	TicketExpired:      {"LobbyService.FindMatch"},
	MatchNotCreated:    {"LobbyService.FindMatch", "LobbyService.PlayBot", "LobbyService.JoinRoom", "LobbyService.OfferRematch"},
	UsernameTaken:      {"LobbyService.ClaimAccount"},
	UsernameConfusable: {"LobbyService.ClaimAccount"},
	AlreadyClaimed:     {"LobbyService.ClaimAccount"},
	CredentialsWrong:   {"LobbyService.SignIn", "LobbyService.DeleteAccount"},
	SignedOut:          {"LobbyService.*"},

	AccountNeeded:        {"LobbyService.ApproveDeviceSignIn", "LobbyService.DeleteAccount"},
	UserCodeUnknown:      {"LobbyService.ApproveDeviceSignIn"},
	AuthorizationPending: {"LobbyService.PollDeviceSignIn"},
	SlowDown:             {"LobbyService.PollDeviceSignIn"},
	AccessDenied:         {"LobbyService.PollDeviceSignIn"},
	ExpiredToken:         {"LobbyService.PollDeviceSignIn"},

	MatchNotFound:    {"MatchService.*"},
	UnknownVariant:   {"MatchService.CreateMatch", "MatchService.ListLegalPlies", "LobbyService.CreateRoom", "LobbyService.FindMatch", "LobbyService.PlayBot", "BotService.SelectPly"},
	BadSetup:         {"MatchService.CreateMatch", "BotService.SelectPly"},
	NotSeated:        {"MatchService.Play", "MatchService.Follow", "MatchService.SubmitPly", "MatchService.Resign", "MatchService.OfferDraw", "MatchService.AcceptDraw", "MatchService.DeclineDraw", "MatchService.AnswerProbe", "MatchService.InviteSpectator"},
	NotYourTurn:      {"MatchService.SubmitPly", "MatchService.Play (PlyRejected)"},
	StalePly:         {"MatchService.SubmitPly", "MatchService.Play (PlyRejected)", "MatchService.ListLegalPlies"},
	GameOver:         {"MatchService.SubmitPly", "MatchService.Play (PlyRejected, ActionRejected)", "MatchService.Resign", "MatchService.OfferDraw", "MatchService.AcceptDraw", "MatchService.DeclineDraw", "MatchService.ListLegalPlies", "BotService.SelectPly"},
	IllegalPly:       {"MatchService.SubmitPly", "MatchService.Play (PlyRejected)"},
	PlySyntax:        {"MatchService.SubmitPly", "MatchService.Play (PlyRejected)", "MatchService.ListLegalPlies"},
	NoDraws:          {"MatchService.OfferDraw", "MatchService.AcceptDraw", "MatchService.DeclineDraw", "MatchService.Play (ActionRejected)"},
	NoDrawOffer:      {"MatchService.AcceptDraw", "MatchService.DeclineDraw", "MatchService.Play (ActionRejected)"},
	DrawOfferPending: {"MatchService.OfferDraw", "MatchService.Play (ActionRejected)"},
	SeatElsewhere:    {"MatchService.Play", "MatchService.Follow"},
	NotPrivate:       {"MatchService.InviteSpectator"},
	MatchChanged:     {"MatchService.*"},
	NotReplicated:    {"MatchService.SubmitPly", "MatchService.Play (PlyRejected)", "MatchService.Resign", "MatchService.OfferDraw", "MatchService.AcceptDraw", "MatchService.DeclineDraw", "MatchService.CreateMatch"},

	BotBusy:           {"BotService.SelectPly", "BotService.ReviewGame", "LobbyService.PlayBot", "LobbyService.ReviewGame"},
	ReviewLimit:       {"LobbyService.ReviewGame"},
	ReviewUnavailable: {"LobbyService.ReviewGame"},
}
