# AOSP's libandroidfw as Debian ships it (android-libandroidfw-dev), with libutils (String8),
# liblog and libbase, as the imported target android_fw. Debian puts them in their own folder,
# so a program linking them carries that folder in its RPATH. Included by the build and by the
# installed package's config, whose static services layer links it.
find_path(ANDROIDFW_INCLUDE_DIR androidfw/ResourceTypes.h PATH_SUFFIXES android REQUIRED)
foreach(lib androidfw utils log base)
  find_library(ANDROID_${lib}_LIBRARY ${lib} PATH_SUFFIXES android REQUIRED NO_CACHE
               PATHS /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/android)
endforeach()
add_library(android_fw INTERFACE IMPORTED)
target_include_directories(android_fw SYSTEM INTERFACE ${ANDROIDFW_INCLUDE_DIR})
target_link_libraries(android_fw INTERFACE ${ANDROID_androidfw_LIBRARY} ${ANDROID_utils_LIBRARY}
                      ${ANDROID_log_LIBRARY} ${ANDROID_base_LIBRARY})
