#include "cli/app.h"

int main(int argc, char** argv) { return trainready::run_cli(argc, argv); }
