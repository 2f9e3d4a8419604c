/* SPDX-License-Identifier: MIT */
// LINK: -lexpat
/* A real program on Debian's expat (static): a document parsed in pieces, its elements,
 * attributes and character data counted, then a malformed one, whose error is reported. */
#include <expat.h>
#include <stdio.h>
#include <string.h>

struct counts {
	int elements, attributes, depth, deepest;
	long chars;
};

static void XMLCALL start(void *u, const XML_Char *name, const XML_Char **attr)
{
	struct counts *c = u;
	(void)name;
	c->elements++;
	for (int i = 0; attr[i]; i += 2)
		c->attributes++;
	if (++c->depth > c->deepest)
		c->deepest = c->depth;
}

static void XMLCALL end(void *u, const XML_Char *name)
{
	(void)name;
	((struct counts *)u)->depth--;
}

static void XMLCALL text(void *u, const XML_Char *s, int len)
{
	(void)s;
	((struct counts *)u)->chars += len;
}

static int parse(const char *doc, const char *name)
{
	struct counts c = {0};
	XML_Parser p = XML_ParserCreate(NULL);
	XML_SetUserData(p, &c);
	XML_SetElementHandler(p, start, end);
	XML_SetCharacterDataHandler(p, text);
	size_t len = strlen(doc);
	int ok = 1;
	for (size_t at = 0; ok && at < len; at += 64)
		ok = XML_Parse(p, doc + at, (int)(len - at < 64 ? len - at : 64), at + 64 >= len) !=
		     XML_STATUS_ERROR;
	if (ok)
		printf("%s: %d elements, %d attributes, depth %d, %ld characters\n", name,
		       c.elements, c.attributes, c.deepest, c.chars);
	else
		fprintf(stderr, "%s: line %lu: %s\n", name,
			(unsigned long)XML_GetCurrentLineNumber(p),
			XML_ErrorString(XML_GetErrorCode(p)));
	XML_ParserFree(p);
	return ok;
}

int main(void)
{
	static char doc[8192];
	size_t n = (size_t)snprintf(doc, sizeof(doc), "<?xml version='1.0'?>\n<library>\n");
	for (int i = 0; i < 40; i++)
		n += (size_t)snprintf(doc + n, sizeof(doc) - n,
				      "  <book id='%d' year='%d'><title>Title %d &amp; more</title>"
				      "<author>A%d</author></book>\n",
				      i, 1900 + i * 3, i, i % 7);
	snprintf(doc + n, sizeof(doc) - n, "</library>\n");
	int good = parse(doc, "library");
	int bad = parse("<a><b></a>", "malformed");
	return good && !bad ? 0 : 1;
}
