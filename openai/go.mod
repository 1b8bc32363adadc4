module github.com/byheart/byheart/openai

go 1.26.0

require (
	github.com/byheart/byheart v0.1.0
	github.com/openai/openai-go/v3 v3.105.0
	github.com/stretchr/testify v1.12.1
)

require (
	github.com/coder/websocket v1.8.15 // indirect
	github.com/tidwall/gjson v1.20.4 // indirect
	github.com/tidwall/match v1.2.0 // indirect
	github.com/tidwall/pretty v1.3.0 // indirect
	github.com/tidwall/sjson v1.2.10 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
)

replace github.com/byheart/byheart => ../
