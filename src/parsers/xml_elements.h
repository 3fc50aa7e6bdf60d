/* xml_elements.h: XML text → element records, read in one streaming pass (libxml2 SAX2), for
 * the URDF loader. Each element keeps its name, line, attributes and children, nothing else (no
 * text, comments or namespaces: URDF has none that matter), in a few large blocks: reading n
 * elements costs O(n) time and a few allocations, where libxml2's DOM would allocate every
 * node, attribute and text. With a callback, each child of the root element is handed over as
 * soon as its end tag is read and then dropped, so the records never hold more than one of
 * them. Attribute values have their entities replaced as the DOM would. No network, no external
 * entity (a document that declares one is refused), libxml2's depth limit, and libxml2 never
 * prints. */
#ifndef MBT_PARSERS_XML_ELEMENTS_H
#define MBT_PARSERS_XML_ELEMENTS_H

#include <stddef.h>

typedef struct mbt_xml_element {
  const char* name;                        /* local name (a prefix "x:" is dropped) */
  int line;                                /* the line of the start tag's end, as libxml2 counts */
  int num_attributes;
  const char* const* attributes;           /* [2·num_attributes]: name, value, name, value, ... */
  const struct mbt_xml_element* children;  /* the first child element, NULL if none */
  const struct mbt_xml_element* next;      /* the next sibling element, NULL if last */
} mbt_xml_element;

typedef enum {
  MBT_XML_OK = 0,
  MBT_XML_MALFORMED,        /* not well-formed: libxml2's first error in message */
  MBT_XML_EXTERNAL_ENTITY,  /* the DTD declares an external entity: its name in message */
  MBT_XML_TOO_DEEP,         /* an element nested deeper than the limit */
  MBT_XML_NO_MEMORY
} mbt_xml_status;

typedef struct mbt_xml_document mbt_xml_document;

typedef struct {
  mbt_xml_status status;
  int line;                 /* 0 if unknown */
  char message[512];
} mbt_xml_error;

/* Called with each complete child element of the root, in file order; `child` and the strings
 * it points to are valid during the call only (keep what must last with mbt__xml_keep). */
typedef void (*mbt_xml_on_child)(void* user, mbt_xml_document* doc, const mbt_xml_element* root,
                                 const mbt_xml_element* child);

/* Reads `length` bytes of XML named `source` (for libxml2's base URI), elements nested at most
 * max_depth deep. Without on_child the
 * document holds every element; with it, the root alone (its children were handed to
 * on_child). The document, or NULL with *error set. The whole text is read even after a
 * callback has found a problem, so that an XML error anywhere takes precedence. */
mbt_xml_document* mbt__xml_read(const char* text, size_t length, const char* source, int max_depth,
                                mbt_xml_on_child on_child, void* user, mbt_xml_error* error);
/* The same in steps, for text that arrives in pieces (a file): begin (NULL if out of memory,
 * *error set), feed each piece in turn, then end, which returns the document or NULL (the
 * document freed, *error set). mbt__xml_free abandons a document between begin and end. */
mbt_xml_document* mbt__xml_begin(const char* source, int max_depth, mbt_xml_on_child on_child, void* user,
                                 mbt_xml_error* error);
void mbt__xml_feed(mbt_xml_document* doc, const char* text, size_t length);
mbt_xml_document* mbt__xml_end(mbt_xml_document* doc);
/* A copy of s that lasts as long as the document (NULL if out of memory). */
const char* mbt__xml_keep(mbt_xml_document* doc, const char* s);
/* The root element (NULL if the document has none). */
const mbt_xml_element* mbt__xml_root(const mbt_xml_document* doc);
/* The value of the attribute `name` without a namespace prefix, NULL if absent. */
const char* mbt__xml_attribute(const mbt_xml_element* e, const char* name);
void mbt__xml_free(mbt_xml_document* doc);

#endif /* MBT_PARSERS_XML_ELEMENTS_H */
