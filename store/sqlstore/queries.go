package sqlstore

import (
	"database/sql/driver"
	"strings"
)

// errBadConn tells database/sql to drop a connection rather than pool it.
var errBadConn = driver.ErrBadConn

// scope is the condition every statement on a conversation carries.
const scope = "tenant = ? AND user_id = ? AND conversation = ?"

// turnColumns are the columns a turn is read with.
const turnColumns = "seq, role, text, time, redacted, tool, call_id, source, authenticated, opens, expires, standing"

// readColumns are what a turn is read back as: its flags folded into one
// number (see flags) and its strings. The seq is not among them: the rows
// read are those of [from, turns), whose seqs are unique, so as many rows
// as that range holds are all of them, in order.
const readColumns = "CASE WHEN redacted <> 0 THEN 1 ELSE 0 END + CASE WHEN authenticated <> 0 THEN 2 ELSE 0 END + " +
	"CASE WHEN opens <> 0 THEN 4 ELSE 0 END + CASE standing WHEN 1 THEN 8 WHEN 2 THEN 16 ELSE 0 END, " +
	"role, text, time, tool, call_id, source, expires"

// The flags of a turn read back.
const (
	flagRedacted      = 1
	flagAuthenticated = 2
	flagOpens         = 4
	// A turn's byheart.Turn.Standing as the application gave it: its
	// column holds the byheart.Standing, 0 (StandingAuto) in rows written
	// before it.
	flagStandingYes = 8
	flagStandingNo  = 16
)

// queries are the statements, written once with the dialect's placeholders.
type queries struct {
	conv, version, newConv, saveConv        string
	redactConv, redactKept                  string
	turns, starts, open                     string
	redacted, redact, deleteTurns, dropConv string
	userConvs, audit, auditOf               string
	saved, addSave, dropSaves               string
	dollar                                  bool
}

// rowsPerInsert is the most turns one statement inserts: 16 values each,
// well under every database's limit on a statement's placeholders.
const rowsPerInsert = 256

// turnArgs is the number of values a turn's row takes.
const turnArgs = 16

// addTurns is the statement that inserts n turns.
func (q queries) addTurns(n int) string {
	row := "(" + strings.Repeat("?, ", turnArgs-1) + "?)"
	rows := strings.Repeat(row+", ", n-1) + row
	return rebind("INSERT INTO byheart_turns (tenant, user_id, conversation, "+turnColumns+", written_at) VALUES "+rows, q.dollar)
}

func newQueries(dollar bool) queries {
	q := queries{
		conv:        "SELECT version, epoch, turns, bound, kept FROM byheart_conversations WHERE " + scope,
		version:     "SELECT version, epoch, turns, bound FROM byheart_conversations WHERE " + scope,
		newConv:     "INSERT INTO byheart_conversations (tenant, user_id, conversation, version, epoch, turns, bound, kept, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		saveConv:    "UPDATE byheart_conversations SET version = ?, turns = ?, bound = ?, kept = ?, updated_at = ? WHERE " + scope + " AND version = ? AND epoch = ?",
		redactConv:  "UPDATE byheart_conversations SET version = ?, epoch = ?, updated_at = ? WHERE " + scope,
		redactKept:  "UPDATE byheart_conversations SET kept = ? WHERE " + scope + " AND kept IS NOT NULL",
		turns:       "SELECT " + readColumns + " FROM byheart_turns WHERE " + scope + " AND seq >= ? AND seq < ? ORDER BY seq",
		starts:      "SELECT seq FROM byheart_turns WHERE " + scope + " AND seq > ? AND seq < ? AND opens = 1 ORDER BY seq",
		open:        "UPDATE byheart_turns SET opens = 1 WHERE " + scope + " AND seq = ?",
		redacted:    "SELECT redacted FROM byheart_turns WHERE " + scope + " AND seq = ?",
		redact:      "UPDATE byheart_turns SET text = ?, source = ?, authenticated = 0, redacted = 1, standing = 0 WHERE " + scope + " AND seq = ?",
		deleteTurns: "DELETE FROM byheart_turns WHERE " + scope,
		dropConv:    "DELETE FROM byheart_conversations WHERE " + scope,
		userConvs:   "SELECT conversation, version, turns FROM byheart_conversations WHERE tenant = ? AND user_id = ? ORDER BY conversation",
		audit: "INSERT INTO byheart_audit (at, tenant, user_id, conversation, action, turn, count, version)" +
			" VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
		saved:     "SELECT version, epoch, turns, bound, digest FROM byheart_saves WHERE " + scope + " AND id = ?",
		addSave:   "INSERT INTO byheart_saves (tenant, user_id, conversation, id, version, epoch, turns, bound, digest, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		dropSaves: "DELETE FROM byheart_saves WHERE " + scope,
		// An expiry is the turn's row's: the save that wrote the turn
		// wrote the event at the same microsecond.
		auditOf: "SELECT a.at, a.conversation, a.action, a.turn, a.count, a.version, t.expires FROM byheart_audit a" +
			" LEFT JOIN byheart_turns t ON a.action = 'expires' AND t.tenant = a.tenant AND t.user_id = a.user_id" +
			" AND t.conversation = a.conversation AND t.seq = a.turn AND t.written_at = a.at" +
			" WHERE a.tenant = ? AND a.user_id = ? ORDER BY a.id",
	}
	q.dollar = dollar
	for _, s := range []*string{&q.conv, &q.version, &q.newConv, &q.saveConv, &q.redactConv, &q.redactKept, &q.turns, &q.starts,
		&q.open, &q.redacted, &q.redact, &q.deleteTurns, &q.dropConv, &q.userConvs, &q.audit, &q.auditOf,
		&q.saved, &q.addSave, &q.dropSaves} {
		*s = rebind(*s, dollar)
	}
	return q
}
