// The man page and completion generators on a small CLI of their own: what they must escape,
// and that nested commands, allowed values and defaults come from CLI11's definitions. (The
// package test checks the real binary's page and scripts against every command's --help.)
#include <gtest/gtest.h>

#include "cli/cli_tree.h"
#include "cli/completions.h"
#include "cli/man_page.h"

using namespace trainready;

namespace {

struct ToyCli {
  CLI::App app{"toy: a small CLI"};
  std::string format = "text";
  std::string path;
  int timeout = 1500;
  bool json = false;
  ToyCli() {
    CLI::App* check = app.add_subcommand("check", ".starts with a dot\n'and a quote");
    check->add_option("--format", format, "Output: text or json")
        ->check(CLI::IsMember({"text", "json"}));
    check->add_option("-t,--timeout", timeout, "Milliseconds")->check(CLI::Range(10, 60000));
    check->add_flag("--json", json, "Same as --format json");
    CLI::App* bench = app.add_subcommand("bench", "Measure");
    CLI::App* storage = bench->add_subcommand("storage", "Read it's files");
    storage->add_option("path", path, "Where, like C:\\data")->required();
  }
};

}  // namespace

TEST(ManPage, EscapesRoffRequestsBackslashesAndHyphens) {
  EXPECT_EQ(roff_escape(".TH not a request"), "\\&.TH not a request");
  EXPECT_EQ(roff_escape("'br not either"), "\\&'br not either");
  EXPECT_EQ(roff_escape("one\n.two"), "one\n\\&.two");
  EXPECT_EQ(roff_escape("a.b 'c'"), "a.b 'c'");
  EXPECT_EQ(roff_escape("C:\\data --root"), "C:\\edata \\-\\-root");
}

TEST(ManPage, EveryCommandWithItsOptionsValuesAndDefaults) {
  ToyCli toy;
  const std::string page = render_man_page(toy.app, "toy", "1.2.3");
  EXPECT_NE(page.find(".TH TOY 1 \"\" \"toy 1.2.3\""), std::string::npos);
  EXPECT_NE(page.find("toy \\- a small CLI"), std::string::npos);
  EXPECT_NE(page.find(".SS \"bench storage\""), std::string::npos);
  EXPECT_NE(page.find("\\&.starts with a dot\n\\&'and a quote"), std::string::npos);
  EXPECT_NE(page.find("\\fB\\-t\\fR, \\fB\\-\\-timeout\\fR \\fIINT\\fR"), std::string::npos);
  EXPECT_NE(page.find("Allowed values: \\fBtext\\fR, \\fBjson\\fR."), std::string::npos);
  EXPECT_NE(page.find("Default: \\fB1500\\fR."), std::string::npos);
  EXPECT_NE(page.find("Accepted: INT in [10 \\- 60000]."), std::string::npos);
  EXPECT_NE(page.find("Where, like C:\\edata"), std::string::npos);
  for (const char* section : {".SH NAME", ".SH SYNOPSIS", ".SH DESCRIPTION", ".SH COMMANDS",
                              ".SH EXIT STATUS", ".SH FILES", ".SH SEE ALSO"})
    EXPECT_NE(page.find(section), std::string::npos) << section;
}

TEST(Completions, ShellQuoteKeepsEveryCharacterLiteral) {
  EXPECT_EQ(shell_quote("plain"), "'plain'");
  EXPECT_EQ(shell_quote("it's $HOME `x`"), "'it'\\''s $HOME `x`'");
  EXPECT_EQ(shell_quote(""), "''");
}

TEST(Completions, ScriptsKnowNestedCommandsFlagsAndValues) {
  ToyCli toy;
  const std::string bash = render_bash_completion(toy.app, "toy");
  EXPECT_NE(bash.find("    'bench') echo 'storage' ;;"), std::string::npos);
  EXPECT_NE(bash.find("    'check') echo '-h --help --format -t --timeout --json' ;;"),
            std::string::npos);
  EXPECT_NE(bash.find("    'check|--format') echo 'text json' ;;"), std::string::npos);
  EXPECT_EQ(bash.find("'check|--json'"), std::string::npos);  // a flag takes no value
  EXPECT_NE(bash.find("complete -F _toy toy"), std::string::npos);
  const std::string zsh = render_zsh_completion(toy.app, "toy");
  EXPECT_EQ(zsh.rfind("#compdef toy\n", 0), 0u);
  EXPECT_NE(zsh.find("'storage:Read it'\\''s files'"), std::string::npos);
  EXPECT_NE(zsh.find("'check|--format') reply=('text' 'json') ;;"), std::string::npos);
}

TEST(CliTree, ReadsDefaultsAndLeavesTheAppUsable) {
  ToyCli toy;
  const auto commands = describe_cli(toy.app);
  ASSERT_EQ(commands.size(), 4u);  // toy, check, bench, bench storage
  EXPECT_EQ(commands[3].joined_path(), "bench storage");
  const OptionDoc& format = commands[1].options[1];
  EXPECT_EQ(format.names, (std::vector<std::string>{"--format"}));
  EXPECT_EQ(format.default_value, "text");
  EXPECT_EQ(format.allowed, (std::vector<std::string>{"text", "json"}));
  EXPECT_FALSE(commands[1].options[3].takes_value);  // --json
  EXPECT_TRUE(commands[3].options.back().positional);
  const char* argv[] = {"toy", "check", "--format", "json"};
  toy.app.parse(4, const_cast<char**>(argv));
  EXPECT_EQ(toy.format, "json");
}
