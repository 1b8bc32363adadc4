package byhearteino

// AppendMessages lets the external tests append an agent's messages as the
// middleware does.
var AppendMessages = appendMessages
