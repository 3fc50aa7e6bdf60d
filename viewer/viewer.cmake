# The viewer's page for `mbt view` (included from tools/CMakeLists.txt): viewer/build.sh
# bundles three.js and viewer/src into one script with npm and esbuild; viewer/embed.c puts
# that script and viewer/page.html into a C source linked into the mbt command. Without node
# and npm the command is built with an empty script and `mbt view` says so.
find_program(MBT_NPM npm)
find_program(MBT_NODE node)
set(MBT_VIEWER_DIR ${PROJECT_SOURCE_DIR}/viewer)
set(MBT_VIEWER_OUT ${PROJECT_BINARY_DIR}/viewer)
add_executable(mbt_embed ${MBT_VIEWER_DIR}/embed.c)
file(GLOB MBT_VIEWER_JS CONFIGURE_DEPENDS ${MBT_VIEWER_DIR}/src/*.js)
if(MBT_NPM AND MBT_NODE)
  set(MBT_VIEWER_SCRIPT ${MBT_VIEWER_OUT}/viewer.js)
  add_custom_command(OUTPUT ${MBT_VIEWER_SCRIPT}
    COMMAND sh ${MBT_VIEWER_DIR}/build.sh ${MBT_VIEWER_SCRIPT}
    DEPENDS ${MBT_VIEWER_JS} ${MBT_VIEWER_DIR}/package.json ${MBT_VIEWER_DIR}/package-lock.json
            ${MBT_VIEWER_DIR}/build.sh
    COMMENT "Bundling the viewer's script (three.js from npm, esbuild)")
  set(MBT_VIEWER_SCRIPT_ARG ${MBT_VIEWER_SCRIPT})
else()
  message(WARNING "node or npm not found: `mbt view` is built without its page script "
                  "(scripts/install-deps.sh --viewer installs them)")
  set(MBT_VIEWER_SCRIPT "")
  set(MBT_VIEWER_SCRIPT_ARG "-")
endif()
add_custom_command(OUTPUT ${MBT_VIEWER_OUT}/viewer_assets.c
  COMMAND ${CMAKE_COMMAND} -E make_directory ${MBT_VIEWER_OUT}
  COMMAND mbt_embed ${MBT_VIEWER_OUT}/viewer_assets.c mbt_viewer_template ${MBT_VIEWER_DIR}/page.html
          mbt_viewer_script ${MBT_VIEWER_SCRIPT_ARG}
  DEPENDS mbt_embed ${MBT_VIEWER_DIR}/page.html ${MBT_VIEWER_SCRIPT}
  COMMENT "Embedding the viewer's page")
set(MBT_VIEWER_ASSETS ${MBT_VIEWER_OUT}/viewer_assets.c)
