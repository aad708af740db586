// mlpack's BLEU scores an empty translation against an empty reference 0 (ratio 0/0 left as 0, so BP = 0).
// Draft report: mlpack-empty-corpus-zero.md.
// Build: g++ -std=c++17 -I MLPACK_INCLUDE mlpack-empty-corpus-zero.cpp -o mlpack-empty-corpus-zero
#include <mlpack/core/metrics/bleu.hpp>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

int main()
{
  using Tokens = std::vector<std::string>;
  std::vector<std::vector<Tokens>> references = {{Tokens{}}};
  std::vector<Tokens> translations = {Tokens{}};
  mlpack::BLEU<> bleu(4);
  const double observed = bleu.Evaluate(references, translations);
  // No token on either side: every p_n and the ratio are 0/0, so the formula gives no number (NaN).
  // JSON has no NaN: a NaN goes by name
  std::printf(std::isnan(observed) ? "{\"observed\": \"NaN\", " : "{\"observed\": %.17g, ", observed);
  std::printf("\"documented\": \"NaN\", \"shown\": \"%.17g\"}\n", observed);
  return 0;
}
