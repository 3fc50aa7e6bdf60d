/* xml_elements.c: XML text → element records in one SAX2 pass (xml_elements.h).
 *
 * libxml2 parses and checks the text (well-formedness, entities, depth) and calls back at each
 * start and end tag; the callbacks append a record to the open element's children. Records,
 * names and values live in an arena of large blocks (tree/arena.h). Everything else (the DTD
 * and its entities) is left to libxml2's own SAX2 handlers, so entity handling and its errors
 * are libxml2's. */
#include "parsers/xml_elements.h"

#include <limits.h>
#include <stdalign.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/SAX2.h>
#include <libxml/dict.h>
#include <libxml/tree.h>

#include "tree/arena.h"

enum { kChunkBytes = 1 << 16 }; /* text handed to libxml2 at a time */

/* ---- the document being read -------------------------------------------------------------- */
typedef struct element {
  mbt_xml_element e;
  struct element* last;  /* last child, for appending */
} element;

struct mbt_xml_document {
  mbt_arena arena;       /* the element records */
  mbt_arena kept;        /* mbt__xml_keep's copies */
  mbt_xml_on_child on_child;
  void* user;
  mbt_arena_mark child_mark; /* the arena before the open child of the root */
  int max_depth;
  element* root;
  element** open;        /* the open elements, root first */
  int depth, cap_open;
  xmlParserCtxtPtr ctxt; /* the document's own parser: entity contents parsed apart are not ours */
  xmlDictPtr dict;       /* the parser's dictionary (element and attribute names), kept */
  mbt_xml_error* error;  /* MBT_XML_NO_MEMORY as soon as it happens */
  mbt_xml_error first;   /* libxml2's first error, which counts if the text is not well-formed */
};

static void out_of_memory(mbt_xml_document* d) {
  if (d->error->status == MBT_XML_OK) d->error->status = MBT_XML_NO_MEMORY;
  xmlStopParser(d->ctxt);
}

/* The document the callback of `ctx` belongs to, NULL for the parse of an entity's content
 * (which the DOM too keeps inside an entity reference, not as elements). */
static mbt_xml_document* document_of(void* ctx) {
  const xmlParserCtxt* ctxt = ctx;
  mbt_xml_document* d = ctxt ? ctxt->_private : NULL;
  return d && d->ctxt == ctxt ? d : NULL;
}

/* An attribute value [value, end) with its entity references replaced (libxml2 leaves them in
 * the value when it does not substitute entities; the DOM would replace them when read). */
static char* expanded_value(mbt_xml_document* d, const xmlChar* value, const xmlChar* end) {
  const size_t n = (size_t)(end - value);
  if (n > INT_MAX) return NULL;
  xmlNodePtr list = xmlStringLenGetNodeList(d->ctxt->myDoc, value, (int)n);
  xmlChar* text = list ? xmlNodeListGetString(d->ctxt->myDoc, list, 1) : NULL;
  xmlFreeNodeList(list);
  char* s = mbt__arena_string(&d->arena, text ? (const char*)text : "", text ? strlen((const char*)text) : 0);
  xmlFree(text);
  return s;
}

/* An element or attribute name: libxml2's own copy in the parser's dictionary, which the
 * document keeps as long as itself, else a copy (NULL if out of memory). */
static const char* name_of(mbt_xml_document* d, const xmlChar* name) {
  if (d->dict && xmlDictOwns(d->dict, name) == 1) return (const char*)name;
  return mbt__arena_string(&d->arena, (const char*)name, strlen((const char*)name));
}

/* A record of the element: its local name, line and attributes without a namespace prefix
 * (attributes: localname, prefix, URI, value, end for each), in one piece of the arena with
 * the values (but those with entity references). NULL if out of memory. */
static element* new_element(mbt_xml_document* d, const xmlChar* localname, int nb_attributes,
                            const xmlChar** attributes) {
  size_t text_bytes = 0;
  for (int k = 0; k < nb_attributes; ++k) text_bytes += (size_t)(attributes[5 * k + 4] - attributes[5 * k + 3]) + 1;
  const size_t attrs_bytes = 2 * (size_t)(nb_attributes > 0 ? nb_attributes : 0) * sizeof(char*);
  unsigned char* block = mbt__arena_alloc(&d->arena, sizeof(element) + attrs_bytes + text_bytes, alignof(element));
  if (!block) return NULL;
  element* el = (element*)(void*)block;
  const char** attrs = (const char**)(void*)(block + sizeof *el); /* sizeof(element) is a multiple of a pointer's */
  char* text = (char*)(block + sizeof *el + attrs_bytes);
  memset(el, 0, sizeof *el);
  el->e.name = name_of(d, localname);
  el->e.line = d->ctxt->input && d->ctxt->input->line > 0 ? d->ctxt->input->line : 0;
  int n = 0;
  for (int k = 0; k < nb_attributes; ++k) {
    const xmlChar** a = attributes + 5 * k;
    if (a[1]) continue; /* a namespaced attribute is not a URDF one */
    const size_t len = (size_t)(a[4] - a[3]);
    attrs[2 * n] = name_of(d, a[0]);
    if (memchr(a[3], '&', len)) {
      attrs[2 * n + 1] = expanded_value(d, a[3], a[4]);
    } else {
      memcpy(text, a[3], len);
      text[len] = '\0';
      attrs[2 * n + 1] = text;
      text += len + 1;
    }
    if (!attrs[2 * n] || !attrs[2 * n + 1]) return NULL;
    ++n;
  }
  el->e.num_attributes = n;
  el->e.attributes = n > 0 ? attrs : NULL;
  return el->e.name ? el : NULL;
}

/* A start tag: the element becomes the last child of the open one (or the root). */
static void start_element(void* ctx, const xmlChar* localname, const xmlChar* prefix, const xmlChar* URI,
                          int nb_namespaces, const xmlChar** namespaces, int nb_attributes, int nb_defaulted,
                          const xmlChar** attributes) {
  (void)prefix, (void)URI, (void)nb_namespaces, (void)namespaces, (void)nb_defaulted;
  mbt_xml_document* d = document_of(ctx);
  if (!d || d->error->status != MBT_XML_OK) return;
  if (d->depth >= d->max_depth) {
    /* libxml2's push parser has no depth limit of its own. */
    d->error->status = MBT_XML_TOO_DEEP;
    d->error->line = d->ctxt->input ? d->ctxt->input->line : 0;
    xmlStopParser(d->ctxt);
    return;
  }
  if (d->depth == d->cap_open) {
    const int cap = d->cap_open ? 2 * d->cap_open : 64;
    element** open = realloc(d->open, (size_t)cap * sizeof *open);
    if (!open) {
      out_of_memory(d);
      return;
    }
    d->open = open;
    d->cap_open = cap;
  }
  if (d->depth == 1 && d->on_child) d->child_mark = mbt__arena_mark(&d->arena);
  element* el = new_element(d, localname, nb_attributes, attributes);
  if (!el) {
    out_of_memory(d);
    return;
  }
  if (d->depth == 0) {
    if (!d->root) d->root = el;
  } else if (d->depth > 1 || !d->on_child) {
    element* parent = d->open[d->depth - 1];
    if (parent->last)
      parent->last->e.next = &el->e;
    else
      parent->e.children = &el->e;
    parent->last = el;
  }
  d->open[d->depth++] = el;
}

/* An end tag: a complete child of the root goes to the callback, then its records are dropped. */
static void end_element(void* ctx, const xmlChar* localname, const xmlChar* prefix, const xmlChar* URI) {
  (void)localname, (void)prefix, (void)URI;
  mbt_xml_document* d = document_of(ctx);
  if (!d || d->depth == 0 || d->error->status != MBT_XML_OK) return;
  --d->depth;
  if (d->depth != 1 || !d->on_child) return;
  d->on_child(d->user, d, &d->root->e, &d->open[1]->e);
  mbt__arena_rewind(&d->arena, d->child_mark);
}

/* Text, comments and entity references are not kept (URDF has no mixed content). */
static void ignore_reference(void* ctx, const xmlChar* name) { (void)ctx, (void)name; }

/* The first error (a namespace error leaves the text well-formed: it may not count); the
 * structured handler also keeps libxml2 from printing. */
#if LIBXML_VERSION >= 21200
static void record_error(void* ctx, const xmlError* e) {
#else
static void record_error(void* ctx, xmlErrorPtr e) {
#endif
  const xmlParserCtxt* ctxt = ctx;
  mbt_xml_document* d = ctxt ? ctxt->_private : NULL;
  if (!d || !e || e->level < XML_ERR_ERROR || d->first.status != MBT_XML_OK) return;
  d->first.status = MBT_XML_MALFORMED;
  d->first.line = e->line;
  snprintf(d->first.message, sizeof d->first.message, "%s", e->message ? e->message : "unknown error");
}

/* ---- reading -------------------------------------------------------------------------------- */
/* A URDF is read alone: a document that declares an external entity is refused, whether or not
 * it uses it (libxml2 never loads one here, but silently dropping its text would be wrong). */
static void refuse_external_entities(const xmlDoc* doc, mbt_xml_error* error) {
  const xmlDtd* dtd = doc ? doc->intSubset : NULL;
  for (const xmlNode* n = dtd ? dtd->children : NULL; n; n = n->next) {
    if (n->type != XML_ENTITY_DECL) continue;
    const xmlEntity* e = (const xmlEntity*)(const void*)n;
    if (e->etype == XML_EXTERNAL_GENERAL_PARSED_ENTITY || e->etype == XML_EXTERNAL_GENERAL_UNPARSED_ENTITY ||
        e->etype == XML_EXTERNAL_PARAMETER_ENTITY) {
      const long line = xmlGetLineNo(n);
      error->status = MBT_XML_EXTERNAL_ENTITY;
      error->line = line > 0 && line <= INT_MAX ? (int)line : 1;
      snprintf(error->message, sizeof error->message, "%s", (const char*)e->name);
      return;
    }
  }
}

/* The SAX2 handlers: libxml2's own, but elements, text and references are ours. */
static void set_handlers(xmlSAXHandler* sax) {
  sax->startElementNs = start_element;
  sax->endElementNs = end_element;
  sax->characters = NULL;
  sax->ignorableWhitespace = NULL;
  sax->cdataBlock = NULL;
  sax->comment = NULL;
  sax->processingInstruction = NULL;
  sax->reference = ignore_reference;
  sax->serror = record_error;
}

mbt_xml_document* mbt__xml_begin(const char* source, int max_depth, mbt_xml_on_child on_child, void* user,
                                 mbt_xml_error* error) {
  memset(error, 0, sizeof *error);
  mbt_xml_document* d = calloc(1, sizeof *d);
  /* A push parser fed in chunks: libxml2's buffer stays one chunk long (reading the whole text
   * from one memory buffer moves the rest of it at every shrink, which is quadratic). */
  xmlParserCtxtPtr ctxt = d ? xmlCreatePushParserCtxt(NULL, NULL, NULL, 0, source) : NULL;
  if (!ctxt) {
    free(d);
    error->status = MBT_XML_NO_MEMORY;
    return NULL;
  }
  d->ctxt = ctxt;
  if (ctxt->dict && xmlDictReference(ctxt->dict) == 0) d->dict = ctxt->dict;
  d->error = error;
  d->on_child = on_child;
  d->user = user;
  d->max_depth = max_depth;
  /* Options as for the DOM: no network, no error output, line numbers above 65535. */
  xmlCtxtUseOptions(ctxt, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_BIG_LINES);
  set_handlers(ctxt->sax);
  ctxt->_private = d;
  return d;
}

void mbt__xml_feed(mbt_xml_document* d, const char* text, size_t length) {
  for (size_t at = 0; at < length && d->error->status == MBT_XML_OK && !d->ctxt->disableSAX;) {
    const size_t n = length - at < kChunkBytes ? length - at : kChunkBytes;
    xmlParseChunk(d->ctxt, text + at, (int)n, 0);
    at += n;
  }
}

mbt_xml_document* mbt__xml_end(mbt_xml_document* d) {
  xmlParserCtxtPtr ctxt = d->ctxt;
  mbt_xml_error* error = d->error;
  if (error->status == MBT_XML_OK) xmlParseChunk(ctxt, NULL, 0, 1);
  xmlDocPtr doc = ctxt->myDoc;
  ctxt->myDoc = NULL;
  if (error->status == MBT_XML_OK && (!doc || !ctxt->wellFormed)) {
    if (d->first.status == MBT_XML_OK) {
      const xmlError* e = xmlCtxtGetLastError(ctxt);
      d->first.line = e ? e->line : 0;
      snprintf(d->first.message, sizeof d->first.message, "%s", e && e->message ? e->message : "unknown error");
    }
    *error = d->first;
    error->status = MBT_XML_MALFORMED;
  }
  if (error->status == MBT_XML_OK) refuse_external_entities(doc, error);
  xmlFreeDoc(doc);
  xmlFreeParserCtxt(ctxt);
  d->ctxt = NULL;
  free(d->open);
  d->open = NULL;
  if (error->status != MBT_XML_OK) {
    mbt__xml_free(d);
    return NULL;
  }
  return d;
}

mbt_xml_document* mbt__xml_read(const char* text, size_t length, const char* source, int max_depth,
                                mbt_xml_on_child on_child, void* user, mbt_xml_error* error) {
  mbt_xml_document* d = mbt__xml_begin(source, max_depth, on_child, user, error);
  if (!d) return NULL;
  mbt__xml_feed(d, text, length);
  return mbt__xml_end(d);
}

const mbt_xml_element* mbt__xml_root(const mbt_xml_document* doc) { return doc && doc->root ? &doc->root->e : NULL; }

const char* mbt__xml_attribute(const mbt_xml_element* e, const char* name) {
  for (int k = 0; k < e->num_attributes; ++k)
    if (e->attributes[2 * k][0] == name[0] && strcmp(e->attributes[2 * k], name) == 0) return e->attributes[2 * k + 1];
  return NULL;
}

const char* mbt__xml_keep(mbt_xml_document* doc, const char* s) {
  return mbt__arena_string(&doc->kept, s, strlen(s));
}

void mbt__xml_free(mbt_xml_document* doc) {
  if (!doc) return;
  if (doc->ctxt) {
    xmlFreeDoc(doc->ctxt->myDoc);
    xmlFreeParserCtxt(doc->ctxt);
  }
  mbt__arena_free(&doc->arena);
  mbt__arena_free(&doc->kept);
  xmlDictFree(doc->dict);
  free(doc->open);
  free(doc);
}
