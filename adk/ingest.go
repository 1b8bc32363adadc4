package byheartadk

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/byheart/byheart/store"
)

// hashedID opens a scope field that stands for an id a store refuses.
const hashedID = "byheart-sha256:"

// scopeID is id as a field of a store's scope: id itself when the store
// takes it (store.ID) and it does not start with hashedID; else hashedID
// and the hex SHA-256 of id. So every id ADK accepts (any length, any
// bytes) has a field of its own: two ids never share one, and an id maps
// to the same field in every process and release.
func scopeID(id string) string {
	if store.ID(id) && !strings.HasPrefix(id, hashedID) {
		return id
	}
	sum := sha256.Sum256([]byte(id))
	return hashedID + hex.EncodeToString(sum[:])
}
