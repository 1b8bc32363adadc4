package main

import (
	"fmt"
	"html"
	"os"
	"path/filepath"
	"strings"
)

// report.html is one self-contained page a person opens to see a run: the
// tables as the Markdown report has them, each section's own sentence on
// what it measures, and the pictures inline with a line on what each shows.
// It loads nothing (no script, no style sheet, no image file), so it reads
// the same mailed, archived or opened offline.

// pictureNotes say what each picture measures, under it.
var pictureNotes = map[string]string{
	recallPicture:     "Evidence recall (the share of each question's evidence turns whose text reaches the context, categories 1–4) at each budget the picture sweeps, one line a method.",
	tokensPicture:     "The effective tokens of every call along the first conversation's live replay (cached input priced at its discount), for a stretch of middle sessions.",
	cumulativePicture: "The running total of those effective tokens over the whole first conversation.",
	paretoPicture:     "Recall against the effective tokens a call costs at the run's budget, one point for each rule 3 setting beside plain RAG and full history; the line joins the points no other beats on both.",
}

// pageStyle is the page's only styling, inline so the page stands alone.
const pageStyle = `body{font-family:sans-serif;max-width:70em;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:1em 0;font-size:.9em}th,td{border:1px solid #bbb;padding:.25em .5em;text-align:left}
th{background:#eee}code{background:#f4f4f4;padding:0 .2em}figure{margin:2em 0}figcaption{color:#444;max-width:50em}
svg{max-width:100%;height:auto}`

// reportHTML is the page of a run whose Markdown report is md and whose
// pictures, named, are in dir.
func reportHTML(md, dir string, pictures []string) (string, error) {
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>byheart benchmark</title>\n")
	b.WriteString("<style>" + pageStyle + "</style>\n</head>\n<body>\n")
	b.WriteString(markdownHTML(md))
	b.WriteString("<p><strong>What this does not measure.</strong> The run makes no model calls: it measures which turns reach the context, " +
		"how long it is and what a provider would bill for it, not whether a model answers better. Costs are priced with a model of a provider's " +
		"cache, not read off a bill. Timings are of this machine, which may have been shared, so they are noisy.</p>\n")
	if len(pictures) > 0 {
		b.WriteString("<h2>Pictures</h2>\n")
	}
	for _, name := range pictures {
		svg, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "<figure id=\"%s\">\n%s\n<figcaption><code>%s</code>: %s</figcaption>\n</figure>\n",
			html.EscapeString(strings.TrimSuffix(name, ".svg")), strings.TrimSpace(string(svg)), html.EscapeString(name), html.EscapeString(pictureNotes[name]))
	}
	b.WriteString("<p>Files beside this page: the same tables as <code>" + tablesMarkdown + "</code> and <code>" + tablesJSON +
		"</code>, the pictures as SVG files, and <code>" + receiptName + "</code>, which holds the SHA-256 of each and of the data; <code>go run ./eval -verify DIR</code> checks them.</p>\n")
	b.WriteString("</body>\n</html>\n")
	return b.String(), nil
}

// markdownHTML renders the Markdown the report writers print: headings,
// paragraphs, pipe tables, dash lists, the <details> blocks around long
// lists, and `code`, **bold** and *emphasis* inline. Everything else is
// text, escaped, since tables quote the data.
func markdownHTML(md string) string {
	var b strings.Builder
	lines := strings.Split(md, "\n")
	var para []string
	flush := func() {
		if len(para) > 0 {
			b.WriteString("<p>" + inlineHTML(strings.Join(para, " ")) + "</p>\n")
			para = nil
		}
	}
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "":
			flush()
		case strings.HasPrefix(trimmed, "#"):
			flush()
			level := len(trimmed) - len(strings.TrimLeft(trimmed, "#"))
			level = min(level, 6)
			fmt.Fprintf(&b, "<h%d>%s</h%d>\n", level, inlineHTML(strings.TrimSpace(trimmed[level:])), level)
		case strings.HasPrefix(trimmed, "|"):
			flush()
			j := i
			for j < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[j]), "|") {
				j++
			}
			writeTable(&b, lines[i:j])
			i = j - 1
		case strings.HasPrefix(trimmed, "- "):
			flush()
			b.WriteString("<ul>\n")
			for ; i < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i]), "- "); i++ {
				b.WriteString("<li>" + inlineHTML(strings.TrimPrefix(strings.TrimSpace(lines[i]), "- ")) + "</li>\n")
			}
			b.WriteString("</ul>\n")
			i--
		case strings.HasPrefix(trimmed, "<details><summary>") && strings.HasSuffix(trimmed, "</summary>"):
			flush()
			summary := strings.TrimSuffix(strings.TrimPrefix(trimmed, "<details><summary>"), "</summary>")
			b.WriteString("<details><summary>" + inlineHTML(summary) + "</summary>\n")
		case trimmed == "</details>":
			flush()
			b.WriteString("</details>\n")
		default:
			para = append(para, trimmed)
		}
	}
	flush()
	return b.String()
}

// writeTable renders a pipe table: a header row, the dashes under it,
// then the body.
func writeTable(b *strings.Builder, rows []string) {
	b.WriteString("<table>\n")
	for k, row := range rows {
		cells := tableCells(row)
		if k == 1 && isRule(cells) {
			continue
		}
		tag := "td"
		if k == 0 {
			tag = "th"
		}
		b.WriteString("<tr>")
		for _, c := range cells {
			fmt.Fprintf(b, "<%s>%s</%s>", tag, inlineHTML(c), tag)
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</table>\n")
}

// tableCells splits a pipe-table row into its cells.
func tableCells(row string) []string {
	row = strings.TrimSpace(row)
	row = strings.TrimPrefix(row, "|")
	row = strings.TrimSuffix(row, "|")
	cells := strings.Split(row, "|")
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	return cells
}

// isRule reports whether cells are a table's header rule (---, :--:).
func isRule(cells []string) bool {
	for _, c := range cells {
		if strings.Trim(c, "-: ") != "" || c == "" {
			return false
		}
	}
	return true
}

// inlineHTML escapes s and renders its `code`, **bold** and *emphasis*;
// a marker without its partner stays as written.
func inlineHTML(s string) string {
	var b strings.Builder
	for s != "" {
		if m, inner, rest, ok := markedSpan(s); ok {
			switch m {
			case "`":
				b.WriteString("<code>" + html.EscapeString(inner) + "</code>")
			case "**":
				b.WriteString("<strong>" + inlineHTML(inner) + "</strong>")
			default:
				b.WriteString("<em>" + inlineHTML(inner) + "</em>")
			}
			s = rest
			continue
		}
		b.WriteString(html.EscapeString(s[:1]))
		s = s[1:]
	}
	return b.String()
}

// markedSpan reports whether s opens with a marked span, returning the marker,
// what it encloses and what follows.
func markedSpan(s string) (marker, inner, rest string, ok bool) {
	for _, m := range []string{"`", "**", "*"} {
		if !strings.HasPrefix(s, m) || len(s) <= len(m) {
			continue
		}
		end := strings.Index(s[len(m):], m)
		if end <= 0 {
			continue
		}
		return m, s[len(m) : len(m)+end], s[len(m)+end+len(m):], true
	}
	return "", "", "", false
}
