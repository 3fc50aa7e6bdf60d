/* no_assets.c: the viewer's page symbols, empty, for programs that link the command's sources
 * without the viewer (the fuzz targets): view_page_available() is then false. The mbt command
 * links the generated viewer_assets.c instead (viewer/viewer.cmake). */
extern const char mbt_viewer_template[];
extern const unsigned long mbt_viewer_template_size;
extern const char mbt_viewer_script[];
extern const unsigned long mbt_viewer_script_size;
const char mbt_viewer_template[] = "";
const unsigned long mbt_viewer_template_size = 0;
const char mbt_viewer_script[] = "";
const unsigned long mbt_viewer_script_size = 0;
