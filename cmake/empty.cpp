// Nothing: the layer link check (src/CMakeLists.txt) links whole layer archives into a shared
// object.
