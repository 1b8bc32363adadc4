package main

import (
	"encoding/xml"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// A small line and scatter chart, written as SVG with the standard library:
// enough for the benchmark's pictures, and nothing a reader's browser cannot
// show.

// chart is one picture: axes, series and a legend.
type chart struct {
	title, subtitle string
	xLabel, yLabel  string
	// xFormat and yFormat write a tick's value.
	xFormat, yFormat func(float64) string
	// yMin and yMax, when yMax > yMin, fix the vertical range instead of
	// fitting it to the data.
	yMin, yMax float64
	series     []series
	// notes are drawn as text at data coordinates.
	notes []note
}

// series is one method's data.
type series struct {
	name  string
	color string
	line  []point // joined in order; may be empty
	dots  []point // marked with circles
	dash  bool    // draw the line dashed
	// vlines are x positions drawn as faint vertical lines.
	vlines []float64
}

type point struct{ x, y float64 }

type note struct {
	at    point
	text  string
	color string
}

// Layout, in SVG user units.
const (
	svgWidth     = 760
	svgHeight    = 460
	plotLeft     = 78
	plotRight    = 200 // room for the legend
	plotTop      = 62
	plotBottom   = 58
	svgFontSize  = 13
	legendHeight = 20
)

// svg renders the chart.
func (c *chart) svg() string {
	x0, x1, y0, y1 := c.bounds()
	pad := (x1 - x0) * 0.03 // so points and their notes clear the frame
	x0, x1 = x0-pad, x1+pad
	xt, yt := ticks(x0, x1), ticks(y0, y1)
	if len(yt) > 1 && c.yMax <= c.yMin {
		y0, y1 = min(y0, yt[0]), max(y1, yt[len(yt)-1])
	}
	w, h := float64(svgWidth-plotLeft-plotRight), float64(svgHeight-plotTop-plotBottom)
	px := func(x float64) float64 { return plotLeft + (x-x0)/(x1-x0)*w }
	py := func(y float64) float64 { return plotTop + h - (y-y0)/(y1-y0)*h }

	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="%d">`+"\n",
		svgWidth, svgHeight, svgWidth, svgHeight, svgFontSize)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", svgWidth, svgHeight)
	svgText(&b, plotLeft, 24, c.title, `font-size="16" font-weight="bold"`)
	svgText(&b, plotLeft, 44, c.subtitle, `fill="#555"`)
	for _, t := range yt {
		if t < y0 || t > y1 {
			continue
		}
		fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#e5e5e5"/>`+"\n", num(plotLeft), num(py(t)), num(plotLeft+w), num(py(t)))
		svgText(&b, plotLeft-8, py(t)+4, c.yFormat(t), `text-anchor="end" fill="#333"`)
	}
	for _, t := range xt {
		if t < x0 || t > x1 {
			continue
		}
		fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#e5e5e5"/>`+"\n", num(px(t)), num(plotTop), num(px(t)), num(plotTop+h))
		svgText(&b, px(t), plotTop+h+18, c.xFormat(t), `text-anchor="middle" fill="#333"`)
	}
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%s" height="%s" fill="none" stroke="#999"/>`+"\n", plotLeft, plotTop, num(w), num(h))
	svgText(&b, plotLeft+w/2, svgHeight-14, c.xLabel, `text-anchor="middle"`)
	fmt.Fprintf(&b, `<text transform="translate(18 %s) rotate(-90)" text-anchor="middle">%s</text>`+"\n", num(plotTop+h/2), escape(c.yLabel))
	for _, s := range c.series {
		for _, x := range s.vlines {
			fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-dasharray="2 3"/>`+"\n", num(px(x)), num(plotTop), num(px(x)), num(plotTop+h), s.color)
		}
	}
	for i, s := range c.series {
		c.drawSeries(&b, s, px, py)
		ly := float64(plotTop + 8 + i*legendHeight)
		lx := float64(svgWidth - plotRight + 16)
		switch {
		case len(s.line) == 0 && len(s.dots) > 0:
			fmt.Fprintf(&b, `<circle cx="%s" cy="%s" r="4" fill="%s"/>`+"\n", num(lx+11), num(ly), s.color)
		case len(s.vlines) > 0:
			fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-dasharray="2 3"/>`+"\n", num(lx+11), num(ly-7), num(lx+11), num(ly+7), s.color)
		default:
			fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="3"%s/>`+"\n", num(lx), num(ly), num(lx+22), num(ly), s.color, dashAttr(s.dash))
		}
		svgText(&b, lx+30, ly+4, s.name, "")
	}
	for _, n := range c.notes {
		svgText(&b, px(n.at.x)+7, py(n.at.y)-6, n.text, `font-size="11" fill="`+n.color+`"`)
	}
	b.WriteString("</svg>\n")
	return b.String()
}

func (c *chart) drawSeries(b *strings.Builder, s series, px, py func(float64) float64) {
	if len(s.line) > 1 {
		pts := make([]string, len(s.line))
		for i, p := range s.line {
			pts[i] = num(px(p.x)) + "," + num(py(p.y))
		}
		fmt.Fprintf(b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"%s/>`+"\n", strings.Join(pts, " "), s.color, dashAttr(s.dash))
	}
	for _, p := range s.dots {
		fmt.Fprintf(b, `<circle cx="%s" cy="%s" r="3.5" fill="%s"/>`+"\n", num(px(p.x)), num(py(p.y)), s.color)
	}
}

// bounds is the data's range, or the fixed vertical one.
func (c *chart) bounds() (x0, x1, y0, y1 float64) {
	x0, y0 = math.Inf(1), math.Inf(1)
	x1, y1 = math.Inf(-1), math.Inf(-1)
	for _, s := range c.series {
		for _, p := range append(append([]point(nil), s.line...), s.dots...) {
			x0, x1 = min(x0, p.x), max(x1, p.x)
			y0, y1 = min(y0, p.y), max(y1, p.y)
		}
	}
	if c.yMax > c.yMin {
		y0, y1 = c.yMin, c.yMax
	}
	if math.IsInf(x0, 1) { // no data at all
		x0, x1, y0, y1 = 0, 1, 0, 1
	}
	if x1 == x0 {
		x0, x1 = x0-1, x1+1
	}
	if y1 == y0 {
		y0, y1 = y0-1, y1+1
	}
	return x0, x1, y0, y1
}

// ticks returns round values spanning [lo, hi]: at most eight steps of 1, 2 or
// 5 times a power of ten.
func ticks(lo, hi float64) []float64 {
	span := hi - lo
	if !(span > 0) || math.IsInf(span, 0) {
		return nil
	}
	step := math.Pow(10, math.Floor(math.Log10(span/6)))
	for _, m := range []float64{1, 2, 5, 10} {
		if span/(step*m) <= 8 {
			step *= m
			break
		}
	}
	// Ticks are whole multiples of step, computed as k/(1/step) when the
	// step is a fraction: 3/5 is 0.6 in floating point, 3×0.2 is not.
	at := func(k float64) float64 { return k * step }
	if step < 1 {
		inv := math.Round(1 / step)
		at = func(k float64) float64 { return k / inv }
	}
	var out []float64
	for k := math.Floor(lo / step); at(k) <= hi+step/2; k++ {
		out = append(out, at(k))
	}
	return out
}

func svgText(b *strings.Builder, x, y float64, s, attrs string) {
	if s == "" {
		return
	}
	if attrs != "" {
		attrs = " " + attrs
	}
	fmt.Fprintf(b, `<text x="%s" y="%s"%s>%s</text>`+"\n", num(x), num(y), attrs, escape(s))
}

func dashAttr(dash bool) string {
	if dash {
		return ` stroke-dasharray="6 4"`
	}
	return ""
}

// num writes a coordinate to a tenth of a unit.
func num(f float64) string { return strconv.FormatFloat(math.Round(f*10)/10, 'f', -1, 64) }

func escape(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s)) // a strings.Builder never fails to write
	return b.String()
}
