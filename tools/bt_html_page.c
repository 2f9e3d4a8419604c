/* SPDX-License-Identifier: MIT */
/*
 * The HTML view's page: the capture (its HEADER pairs), a table of its sessions, then per
 * session its summary, hot functions, hot branches, flame graph (bt_html_flame.c), timeline
 * (bt_html_timeline.c), samples (histogram by function, data addresses) and its hottest functions'
 * annotated disassembly (bt_html_asm.c). One file: the style inline, the graphs inline SVG, a few
 * lines of script (a click on a flame frame marks that function's frames); nothing is fetched.
 * Every string from the capture or an ELF (symbol names are anyone's: C++ templates have < >
 * and &) goes through html_text.
 */
#define _GNU_SOURCE /* uselocale */
#include <inttypes.h>
#include <locale.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include "tools/bt_html.h"

#define HOT_ROWS       15 /* rows of the hot functions, branches, sample tables */
#define ANNOTATED      6  /* functions disassembled per session */
#define NAME_LEN       512
#define REPLACEMENT    "\xef\xbf\xbd" /* U+FFFD in UTF-8 */
#define MAX_UTF8_SEQ   4
#define MAX_CODE_POINT 0x10ffff

/* ---- escaping ---- */

/* The length of the well-formed UTF-8 character at s (RFC 3629: glibc's C.UTF-8 decoder
 * refuses overlong forms and surrogates; code points past U+10FFFF are refused here), 0 if
 * there is none. */
static size_t utf8_char(const char *s, size_t left, locale_t utf8)
{
	if (!utf8)
		return 0;
	mbstate_t st;
	wchar_t w;
	memset(&st, 0, sizeof(st));
	locale_t old = uselocale(utf8);
	size_t n = mbrtowc(&w, s, left < MAX_UTF8_SEQ ? left : MAX_UTF8_SEQ, &st);
	uselocale(old);
	return n == 0 || n > MAX_UTF8_SEQ || (uint32_t)w > MAX_CODE_POINT ? 0 : n;
}

void html_text(const char *str)
{
	static locale_t utf8;
	if (!utf8)
		utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
	const char *s = str;
	size_t left = strlen(s);
	while (left) {
		unsigned char c = (unsigned char)*s;
		size_t n = 1;
		if (c == '&')
			fputs("&amp;", out_records);
		else if (c == '<')
			fputs("&lt;", out_records);
		else if (c == '>')
			fputs("&gt;", out_records);
		else if (c == '"')
			fputs("&quot;", out_records);
		else if (c == '\'')
			fputs("&#39;", out_records);
		else if ((c < 0x20 && c != '\t') || c == 0x7f)
			fputs(REPLACEMENT, out_records);
		else if (c < 0x80)
			fputc(c, out_records);
		else {
			n = utf8_char(s, left, utf8);
			if (n)
				fwrite(s, 1, n, out_records);
			else
				fputs(REPLACEMENT, out_records);
			n = n ? n : 1;
		}
		s += n;
		left -= n;
	}
}

void html_textf(const char *fmt, ...)
{
	char buf[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	html_text(buf);
}

void html_func_name(uint64_t fn)
{
	char name[NAME_LEN];
	html_text(bt_sym_name(fn, name, sizeof(name)));
}

/* ---- the page's frame ---- */

static const char STYLE[] =
    "body{font:14px/1.4 system-ui,sans-serif;margin:0 auto;max-width:1240px;padding:0 16px;"
    "color:#1d2329;background:#fbfbfa}\n"
    "h1{font-size:22px;margin:18px 0 4px}h2{font-size:18px;margin:34px 0 8px;padding-top:10px;"
    "border-top:2px solid #d0d4d8}h3{font-size:15px;margin:22px 0 6px}h4{margin:14px 0 4px}"
    "small,.note{color:#5b6670}\n"
    "table{border-collapse:collapse;margin:4px 0}td,th{padding:2px 8px;text-align:left;"
    "vertical-align:top}th{background:#e9ecef;font-weight:600}tbody tr:nth-child(even)"
    "{background:#f1f3f5}\n"
    "td.n{text-align:right;font-variant-numeric:tabular-nums}td.z{color:#aaa}"
    ".kv th{background:none;color:#5b6670;font-weight:normal}\n"
    ".bar{display:inline-block;height:10px;background:#e8743b;vertical-align:middle;"
    "margin-right:6px}\n"
    ".ok{color:#1a7f37;font-weight:600}.bad{color:#c62828;font-weight:600}\n"
    "code,.code,.addr,.ins{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px}\n"
    "table.code td{padding:0 8px;white-space:pre}table.code tr.src td{color:#5b6670;"
    "background:#fff;padding-top:4px;font-style:italic}table.code tr.br .ins{font-weight:600}"
    ".hb{display:inline-block;height:9px;margin-right:5px;background:rgba(232,116,59,.6);"
    "vertical-align:middle}.irq{color:#8e24aa}.tgt{color:#5b6670}\n"
    "svg{display:block;max-width:100%;height:auto;background:#fff;border:1px solid #e0e3e6}"
    "svg text{font:12px ui-monospace,Menlo,Consolas,monospace;fill:#1d2329;"
    "pointer-events:none}\n"
    "svg.flame g.fr:hover rect{stroke:#1d2329;stroke-width:1}"
    "svg.flame g.fr.mark rect{fill:#7e57c2}\n"
    "nav a{margin-right:12px}details{margin:6px 0}\n";

/* A click on a flame frame marks every frame of that function in the page's flame graphs; the
 * body's data-script says the script ran to its end (the tests look for it). */
static const char SCRIPT[] =
    "document.querySelectorAll('svg.flame g.fr').forEach(function (g) {\n"
    "  g.addEventListener('click', function () {\n"
    "    var on = !g.classList.contains('mark'), fn = g.getAttribute('data-fn');\n"
    "    document.querySelectorAll('svg.flame g.fr').forEach(function (o) {\n"
    "      o.classList.toggle('mark', on && o.getAttribute('data-fn') === fn);\n"
    "    });\n"
    "  });\n"
    "});\n"
    "document.body.setAttribute('data-script', 'done');\n";

static void capture_table(void)
{
	fputs("<details><summary>The capture's header (every boot's HEADER pairs, each "
	      "once)</summary><table class=\"kv\">\n",
	      out_records);
	for (unsigned i = 0; i < html_n_pairs; i++) {
		const char *eq = strchr(html_pairs[i], '=');
		size_t klen = eq ? (size_t)(eq - html_pairs[i]) : strlen(html_pairs[i]);
		fputs("<tr><th>", out_records);
		html_textf("%.*s", (int)klen, html_pairs[i]);
		fputs("</th><td>", out_records);
		html_text(eq ? eq + 1 : "");
		fputs("</td></tr>\n", out_records);
	}
	fputs("</table></details>\n", out_records);
}

static const char *verdict_of(const struct html_session *h)
{
	return h->ended ? h->verdict : "no END: the capture ends inside it";
}

/* The sessions, with their threads' column when the capture has threads (html_threaded). */
static void sessions_table(void)
{
	bool threads = html_threaded();
	fprintf(out_records,
		"<table><thead><tr><th>#</th><th>facility</th><th>session</th>%s<th>CPU</th>"
		"<th>records</th><th>lost</th><th>verdict</th></tr></thead><tbody>\n",
		threads ? "<th>thread</th>" : "");
	for (unsigned i = 0; i < html_n_sessions; i++) {
		const struct html_session *h = html_sessions[i];
		fprintf(out_records, "<tr><td><a href=\"#s%u\">%u</a></td><td>", i, i + 1);
		html_text(h->facility);
		fputs("</td><td>", out_records);
		html_text(h->name);
		if (threads)
			fprintf(out_records, "</td><td class=\"n\">tid %" PRIu32, h->tid);
		fprintf(out_records,
			"</td><td class=\"n\">%u</td><td class=\"n\">%" PRIu64
			"</td><td class=\"n\">%" PRIu64 "</td><td class=\"%s\">",
			h->cpu, h->branches + h->pebs + h->samples, h->end_lost,
			h->ended && !strcmp(h->verdict, "ok") && !h->end_lost ? "ok" : "bad");
		html_text(verdict_of(h));
		fputs("</td></tr>\n", out_records);
	}
	fputs("</tbody></table>\n", out_records);
}

/* ---- a session ---- */

/* The conditional branches the records and the paths between them met: taken (a record from
 * one) and not taken (a path fell through one), over the whole session. */
static void conditionals(const struct html_session *h)
{
	size_t n;
	uint64_t taken = 0, not_taken = 0;
	struct html_insn **v = (struct html_insn **)html_map_values(&h->insns, &n);
	for (size_t i = 0; i < n; i++) {
		int kind = bt_sym_branch_kind(v[i]->addr);
		if (kind > X86_BR_NONE && x86_branch_conditional(kind)) {
			taken += v[i]->taken;
			not_taken += v[i]->not_taken;
		}
	}
	free(v);
	fprintf(out_records,
		"<tr><th>conditional branches</th><td class=\"cond\" data-taken=\"%" PRIu64
		"\" data-nottaken=\"%" PRIu64 "\">%" PRIu64 " met: %" PRIu64 " taken, %" PRIu64
		" not taken</td></tr>\n",
		taken, not_taken, taken + not_taken, taken, not_taken);
}

static void summary(const struct html_session *h)
{
	fputs("<table class=\"kv\">\n<tr><th>facility</th><td>", out_records);
	html_text(h->facility);
	fputs("</td></tr>\n<tr><th>session</th><td>", out_records);
	html_text(h->name);
	if (html_threaded())
		fprintf(out_records, "</td></tr>\n<tr><th>thread</th><td>tid %" PRIu32 "%s", h->tid,
			h->tid == 1 ? " (the main thread)" : "");
	fprintf(
	    out_records,
	    "</td></tr>\n<tr><th>CPU</th><td>%u</td></tr>\n<tr><th>records decoded</th><td>%" PRIu64
	    " branch records, %" PRIu64 " PEBS samples, %" PRIu64
	    " counter or BTF samples</td></tr>\n",
	    h->cpu, h->branches, h->pebs, h->samples);
	if (h->lbr_samples)
		fprintf(out_records,
			"<tr><th>LBR samples</th><td>%" PRIu64
			" stacks, each taken with its IP (the samples column); %" PRIu64
			" of their entries an earlier stack already held, counted once; %" PRIu64
			" the service routine's own return to the sampled IP (the tracer's, not "
			"counted)</td></tr>\n",
			h->lbr_samples, h->overlapped, h->pmi_returns);
	if (h->ended)
		fprintf(out_records,
			"<tr><th>the kernel's count</th><td>%" PRIu64 " records, %" PRIu64
			" lost (dropped before they reached the stream)</td></tr>\n",
			h->end_records, h->end_lost);
	fprintf(out_records, "<tr><th>verdict</th><td class=\"%s\">",
		h->ended && !strcmp(h->verdict, "ok") && !h->end_lost ? "ok" : "bad");
	html_text(verdict_of(h));
	if (h->ended && *h->why) {
		fputs(" <small>(", out_records);
		html_text(h->why);
		fputs(")</small>", out_records);
	}
	fputs("</td></tr>\n", out_records);
	if (h->walked || h->unwalked) {
		fprintf(out_records,
			"<tr><th>paths between branches</th><td>%" PRIu64 " followed along the "
			"ELF's code, %" PRIu64
			" not (no code, or a gap in the records)</td></tr>\n",
			h->walked, h->unwalked);
		conditionals(h);
	}
	fputs("</table>\n", out_records);
}

static bool can_annotate(uint64_t fn)
{
	struct bt_sym sym;
	uint8_t b[X86_MAX_INSN_LENGTH];
	return bt_sym_lookup(fn, &sym) && !sym.offset && bt_sym_code(NULL, fn, b);
}

static void bar(uint64_t n, uint64_t max)
{
	fprintf(out_records, "<span class=\"bar\" style=\"width:%.0fpx\"></span>",
		max ? 160.0 * (double)n / (double)max : 0.0);
}

/* The hot functions table; annotated[i]: the i-th function's disassembly follows. */
static void hot_functions(const struct html_func *f, size_t n, const bool *annotated,
			  unsigned index, uint64_t branches)
{
	if (!n) {
		fputs("<p class=\"note\">No records.</p>\n", out_records);
		return;
	}
	fputs("<table class=\"hotfn\"><thead><tr><th>function</th><th>branches taken "
	      "from it</th><th>%</th><th>instructions run (paths)</th><th>samples</th>"
	      "</tr></thead><tbody>\n",
	      out_records);
	for (size_t i = 0; i < n && i < HOT_ROWS; i++) {
		fputs("<tr><td>", out_records);
		if (annotated[i])
			fprintf(out_records, "<a href=\"#s%u-f%" PRIx64 "\">", index, f[i].start);
		html_func_name(f[i].start);
		fputs(annotated[i] ? "</a></td><td>" : "</td><td>", out_records);
		bar(f[i].taken, f[0].taken);
		fprintf(out_records,
			"%" PRIu64 "</td><td class=\"n\">%.1f</td><td class=\"n\">%" PRIu64
			"</td><td class=\"n\">%" PRIu64 "</td></tr>\n",
			f[i].taken, branches ? 100.0 * (double)f[i].taken / (double)branches : 0.0,
			f[i].exec, f[i].samples);
	}
	fputs("</tbody></table>\n", out_records);
}

static int by_count(const void *a, const void *b)
{
	const struct html_branch *x = *(const struct html_branch *const *)a,
				 *y = *(const struct html_branch *const *)b;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return x->from < y->from ? -1 : x->from > y->from;
}

static void hot_branches(const struct html_session *h)
{
	size_t n;
	struct html_branch **v = (struct html_branch **)html_map_values(&h->branch_map, &n);
	if (!n) {
		free(v);
		return;
	}
	qsort(v, n, sizeof(*v), by_count);
	fputs("<h3>Hot branches</h3>\n<table class=\"hotbr\"><thead><tr><th>records</th><th>from"
	      "</th><th>to</th><th>kind</th></tr></thead><tbody>\n",
	      out_records);
	for (size_t i = 0; i < n && i < HOT_ROWS; i++) {
		fputs("<tr><td>", out_records);
		bar(v[i]->count, v[0]->count);
		fprintf(out_records, "%" PRIu64 "</td><td><code>%#" PRIx64 "</code> ", v[i]->count,
			v[i]->from);
		html_func_name(v[i]->from);
		fprintf(out_records, "</td><td><code>%#" PRIx64 "</code> ", v[i]->to);
		html_func_name(v[i]->to);
		fputs("</td><td>", out_records);
		html_text(bt_kind_name(v[i]->kind));
		fputs("</td></tr>\n", out_records);
	}
	fputs("</tbody></table>\n", out_records);
	free(v);
}

/* ---- samples ---- */

static int by_samples(const void *a, const void *b)
{
	const struct html_func *x = a, *y = b;
	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	return x->start < y->start ? -1 : x->start > y->start;
}

static int by_data(const void *a, const void *b)
{
	const struct html_data *x = *(const struct html_data *const *)a,
			       *y = *(const struct html_data *const *)b;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return x->dla < y->dla ? -1 : x->dla > y->dla;
}

static void data_addresses(const struct html_session *h)
{
	size_t n;
	struct html_data **v = (struct html_data **)html_map_values(&h->data, &n);
	if (n) {
		qsort(v, n, sizeof(*v), by_data);
		fputs("<h4>Data addresses</h4>\n<table class=\"data\"><thead><tr><th>address</th>"
		      "<th>samples</th><th>latency (mean, max)</th><th>data source</th><th>"
		      "instruction</th></tr></thead><tbody>\n",
		      out_records);
	}
	for (size_t i = 0; i < n && i < HOT_ROWS; i++) {
		struct bt_sym sym;
		fprintf(out_records, "<tr><td><code>%#" PRIx64 "</code> ", v[i]->dla);
		if (bt_sym_lookup(v[i]->dla, &sym))
			html_func_name(v[i]->dla);
		fprintf(out_records,
			"</td><td class=\"n\">%" PRIu64 "</td><td class=\"n\">%.1f, %" PRIu64
			"</td><td><code>%#" PRIx64 "</code></td><td>",
			v[i]->count, (double)v[i]->lat_sum / (double)v[i]->count, v[i]->lat_max,
			v[i]->dse);
		html_func_name(v[i]->ip);
		fputs("</td></tr>\n", out_records);
	}
	if (n)
		fputs("</tbody></table>\n", out_records);
	free(v);
}

static void samples(const struct html_session *h, const struct html_func *f, size_t n)
{
	uint64_t all = h->pebs + h->samples;
	if (!all)
		return;
	struct html_func *by = malloc(n * sizeof(*by));
	if (!by) {
		fprintf(stderr, "btdecode: out of memory for the samples\n");
		exit(2);
	}
	memcpy(by, f, n * sizeof(*by));
	qsort(by, n, sizeof(*by), by_samples);
	fprintf(out_records,
		"<h3>Samples</h3>\n<p class=\"note\">%" PRIu64 " PEBS and %" PRIu64
		" counter or BTF samples, by the function of their IP (PEBS: the eventing "
		"IP).</p>\n<table class=\"samples\"><thead><tr><th>function</th><th>samples</th>"
		"<th>%%</th></tr></thead><tbody>\n",
		h->pebs, h->samples);
	for (size_t i = 0; i < n && i < HOT_ROWS && by[i].samples; i++) {
		fputs("<tr><td>", out_records);
		html_func_name(by[i].start);
		fputs("</td><td>", out_records);
		bar(by[i].samples, by[0].samples);
		fprintf(out_records, "%" PRIu64 "</td><td class=\"n\">%.1f</td></tr>\n",
			by[i].samples, 100.0 * (double)by[i].samples / (double)all);
	}
	fputs("</tbody></table>\n", out_records);
	free(by);
	data_addresses(h);
}

/* ---- the page ---- */

static void annotations(const struct html_session *h, const struct html_func *f,
			const bool *annotated, size_t n, unsigned index)
{
	bool any = false;
	for (size_t i = 0; i < n; i++)
		any |= annotated[i];
	if (!any)
		return;
	fputs("<h3>Annotated disassembly</h3>\n<p class=\"note\">The hottest functions, "
	      "disassembled by Zydis. <b>taken</b>: branch records from that instruction; "
	      "<b>not taken</b>: times a path between two records fell through that conditional "
	      "branch; <b>ran</b>: times the instruction was on such a path (its bar); "
	      "<b>samples</b>: samples with it as IP. LBR stacks that overlap (an "
	      "<code>lbr.period</code> shorter than the stack) count a branch once, however many "
	      "of them hold it.</p>\n",
	      out_records);
	for (size_t i = 0; i < n; i++)
		if (annotated[i])
			html_asm_function(h, f[i].start, index);
}

static void session_section(unsigned index)
{
	const struct html_session *h = html_sessions[index];
	fprintf(out_records, "<section class=\"session\" id=\"s%u\" data-facility=\"", index);
	html_text(h->facility);
	fprintf(out_records, "\" data-cpu=\"%u\" data-number=\"%" PRIu32 "\"", h->cpu, h->number);
	bool threads = html_threaded();
	if (threads)
		fprintf(out_records, " data-tid=\"%" PRIu32 "\"", h->tid);
	fprintf(out_records, ">\n<h2>%u. ", index + 1);
	html_textf("%s %s", h->facility, h->name);
	if (threads) /* its thread, as the threads' timeline names it */
		fprintf(out_records, " <small>tid %" PRIu32 " (cpu %u)</small></h2>\n", h->tid,
			h->cpu);
	else
		fprintf(out_records, " <small>CPU %u</small></h2>\n", h->cpu);
	summary(h);
	size_t n;
	struct html_func *f = html_functions(h, &n);
	bool *annotated = calloc(n ? n : 1, sizeof(*annotated));
	if (!annotated) {
		fprintf(stderr, "btdecode: out of memory for the HTML report\n");
		exit(2);
	}
	for (size_t i = 0, k = 0; i < n && k < ANNOTATED; i++)
		if ((f[i].taken || f[i].samples || f[i].exec) && can_annotate(f[i].start))
			annotated[i] = ++k;
	fputs("<h3>Hot functions</h3>\n", out_records);
	hot_functions(f, n, annotated, index, h->branches);
	hot_branches(h);
	fputs("<h3>Flame graph</h3>\n<p class=\"note\">The call stacks rebuilt from the "
	      "branches (as <code>--view folded</code> gives them): each branch counts once for "
	      "the stack it was taken from; callers below, callees above. Click a frame to mark "
	      "that function's frames.</p>\n",
	      out_records);
	html_flame_svg(h);
	html_timeline_svg(h, f, n);
	samples(h, f, n);
	annotations(h, f, annotated, n, index);
	fputs("</section>\n", out_records);
	free(annotated);
	free(f);
}

void html_page(void)
{
	fprintf(out_records,
		"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<meta "
		"name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>"
		"baretrace capture</title>\n<style>\n%s</style></head><body>\n<h1>baretrace "
		"capture</h1>\n<p class=\"note\">%u sessions, written by <code>btdecode --view "
		"html</code>. Everything is on this page: nothing is fetched.</p>\n",
		STYLE, html_n_sessions);
	capture_table();
	sessions_table();
	html_threads_svg();
	for (unsigned i = 0; i < html_n_sessions; i++)
		session_section(i);
	fprintf(out_records, "<script>\n%s</script>\n</body></html>\n", SCRIPT);
}
