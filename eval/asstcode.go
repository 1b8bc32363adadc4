package main

// Code blocks for the assistant-shaped conversations' answers, by fence
// language, all written for this project. {id} is a subject as an
// identifier in snake case, {Id} in Go's exported form, {idc} in camel
// case; {n} is a number, {s} the subject, {t} a term and {tool} a tool.
// Some print lines that open with a speaker's word ("user: alice"), as real
// programs and logs do.

var codeBlocks = map[string][]string{
	"go": {
		`package {id}

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// {Id} holds what {s} needs between calls.
type {Id} struct {
	limit   int
	timeout time.Duration
	seen    map[string]time.Time
}

// New{Id} returns a {Id} that allows {n} items per window.
func New{Id}(limit int) *{Id} {
	return &{Id}{limit: limit, timeout: 2 * time.Second, seen: map[string]time.Time{}}
}

var ErrBusy = errors.New("{id}: busy, try again")

// Handle processes one key, refusing when the window is full.
func (x *{Id}) Handle(ctx context.Context, key string) error {
	if len(x.seen) >= x.limit {
		return fmt.Errorf("handle %q: %w", key, ErrBusy)
	}
	ctx, cancel := context.WithTimeout(ctx, x.timeout)
	defer cancel()
	select {
	case <-ctx.Done():
		return ctx.Err()
	default:
	}
	x.seen[key] = time.Now()
	return nil
}`,
		`func Test{Id}Handles{n}Keys(t *testing.T) {
	x := New{Id}({n})
	for i := range {n} {
		if err := x.Handle(context.Background(), fmt.Sprint("key-", i)); err != nil {
			t.Fatalf("key %d: %v", i, err)
		}
	}
	if err := x.Handle(context.Background(), "one-more"); !errors.Is(err, ErrBusy) {
		t.Fatalf("got %v, want ErrBusy", err)
	}
}`,
		`func run{Id}(ctx context.Context, jobs <-chan Job, out chan<- Result) error {
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case j, ok := <-jobs:
			if !ok {
				return nil
			}
			var res Result
			err := retry(ctx, 3, func() (err error) {
				res, err = process(ctx, j)
				return err
			})
			if err != nil {
				log.Printf("{id}: job %s failed: %v", j.ID, err)
				continue
			}
			out <- res
		}
	}
}`,
		`func main() {
	sessions := []struct{ role, name string }{
		{"user", "alice"},
		{"assistant", "ready"},
		{"system", "{id}"},
	}
	for _, s := range sessions {
		fmt.Printf("%s: %s\n", s.role, s.name)
	}
}`,
		`mux := http.NewServeMux()
mux.HandleFunc("POST /{id}", func(w http.ResponseWriter, r *http.Request) {
	var req {Id}Request
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&req); err != nil {
		http.Error(w, "bad request: "+err.Error(), http.StatusBadRequest)
		return
	}
	if err := svc.Apply(r.Context(), req); err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	w.WriteHeader(http.StatusAccepted)
})
srv := &http.Server{Addr: ":{n}", Handler: mux, ReadHeaderTimeout: 5 * time.Second}
log.Fatal(srv.ListenAndServe())`,
	},
	"python": {
		`import pandas as pd
import numpy as np


def summarise_{id}(path: str) -> pd.DataFrame:
    """Load the {s} data and summarise it by week."""
    df = pd.read_csv(path, parse_dates=["day"])
    df["week"] = df["day"].dt.isocalendar().week
    out = df.groupby("week").agg(
        count=("value", "size"),
        mean=("value", "mean"),
        p90=("value", lambda v: np.percentile(v, 90)),
    )
    return out.round(2)


if __name__ == "__main__":
    print(summarise_{id}("{id}.csv").tail({n}))`,
		`import numpy as np

rng = np.random.default_rng({n})
x = rng.normal(size=200)
y = 2.5 * x + rng.normal(scale=0.8, size=200)

# closed form first, then check it against lstsq
X = np.column_stack([np.ones_like(x), x])
beta = np.linalg.inv(X.T @ X) @ X.T @ y
beta_check, *_ = np.linalg.lstsq(X, y, rcond=None)
print("{id}:", beta.round(3), beta_check.round(3))`,
		`def {id}_steps(items, limit={n}):
    """Yield the items in batches, the way {s} expects them."""
    batch = []
    for item in items:
        batch.append(item)
        if len(batch) == limit:
            yield batch
            batch = []
    if batch:
        yield batch


for i, batch in enumerate({id}_steps(range(25), 7)):
    print(f"batch {i}: {batch}")`,
		`transcript = [
    ("user", "alice"),
    ("assistant", "ready"),
    ("user", "start {id}"),
]
for role, text in transcript:
    print(f"{role}: {text}")`,
	},
	"sql": {
		`CREATE TABLE {id} (
    id          bigserial PRIMARY KEY,
    account_id  bigint      NOT NULL REFERENCES accounts (id),
    status      text        NOT NULL DEFAULT 'pending',
    amount_cents bigint     NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX {id}_account_created ON {id} (account_id, created_at DESC);`,
		`SELECT a.name,
       count(*)                         AS items,
       sum(x.amount_cents) / 100.0      AS total,
       max(x.created_at)                AS last_seen
FROM   {id} x
JOIN   accounts a ON a.id = x.account_id
WHERE  x.created_at >= now() - interval '{n} days'
  AND  x.status <> 'void'
GROUP  BY a.name
ORDER  BY total DESC
LIMIT  20;`,
		`EXPLAIN (ANALYZE, BUFFERS)
SELECT *
FROM   {id}
WHERE  account_id = $1
ORDER  BY created_at DESC
LIMIT  {n};`,
	},
	"bash": {
		`set -euo pipefail
docker compose up -d db
export DATABASE_URL="postgres://dev:dev@localhost:5432/{id}?sslmode=disable"
go run ./cmd/migrate up
go test ./... -run {Id} -count=1`,
		`kubectl -n {id} get pods -o wide
kubectl -n {id} logs deploy/{id} --since=1h | grep -i error | tail -n {n}
kubectl -n {id} rollout restart deploy/{id}`,
		`for f in drafts/*.md; do
  printf '%s\t%s\n' "$(wc -w < "$f")" "$f"
done | sort -n | tail -n {n}`,
		`$ ./{id} --check
user: alice
assistant: ready
status: {n} items checked, 0 failed`,
	},
	"yaml": {
		`name: {id}
on:
  push:
    branches: [main]
  pull_request:
jobs:
  test:
    runs-on: ubuntu-latest
    timeout-minutes: {n}
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-go@v5
        with:
          go-version: stable
      - run: go vet ./...
      - run: go test -race ./...`,
		`apiVersion: apps/v1
kind: Deployment
metadata:
  name: {id}
spec:
  replicas: 3
  template:
    spec:
      containers:
        - name: {id}
          image: registry.example.internal/{id}:1.{n}.0
          resources:
            limits:
              memory: 512Mi
          env:
            - name: GOMEMLIMIT
              value: 450MiB`,
		`{id}:
  owner: team
  due: week {n}
  steps:
    - draft
    - review
    - sign-off
  risks:
    - supplier late
    - budget overrun`,
	},
	"r": {
		`set.seed({n})
x <- rnorm(200)
y <- 2.5 * x + rnorm(200, sd = 0.8)
fit <- lm(y ~ x)
summary(fit)$coefficients
confint(fit, level = 0.95)`,
		`sims <- replicate(10000, mean(rexp({n}, rate = 1)))
hist(sims, breaks = 50, main = "{s}")
c(mean = mean(sims), sd = sd(sims))`,
	},
	"text": {
		`{Id} — working notes
  1. what we know
  2. what we assume
  3. what we still need to check ({n} items)
  4. who signs off`,
		`Week {n}
  Mon  outline {s}
  Wed  first pass, then review
  Fri  send it round`,
	},
	"markdown": {
		`# {Id}

## Beats
1. Opening image
2. The problem arrives
3. A choice that costs something
4. The turn ({n} pages in)
5. The price is paid

> Keep the last line of each scene on the page it belongs to.`,
		`- [ ] reread {s} aloud
- [ ] cut every sentence that repeats the one before
- [ ] check names against the bible
- [ ] {n} minutes on the ending, no more`,
	},
}

// langFence names a block's language on its fence as answers write it.
var langFence = map[string]string{"go": "go", "python": "python", "sql": "sql", "bash": "bash", "yaml": "yaml", "r": "r", "text": "text", "markdown": "markdown"}

// sampleOutputs are what a program prints, shown after its code: lines
// that open with a speaker's word, as chat tools and their logs print.
var sampleOutputs = []string{
	"user: alice\nassistant: ready\nstatus: {n} items checked, 0 failed",
	"system: {id} started\nuser: bob (id {n})\nassistant: ready",
	"User: alice\nAssistant: Hello! How can I help with {s}?\nUser: list the open items",
}
