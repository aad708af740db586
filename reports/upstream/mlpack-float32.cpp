// mlpack's BLEU<float> (the default element type) keeps ratios, logarithms and the score in single precision:
// the score differs from the exact one by about 1e-7 relative. Draft report: mlpack-float32.md.
// Build: g++ -std=c++17 -I MLPACK_INCLUDE mlpack-float32.cpp -o mlpack-float32 && ./mlpack-float32
#include <mlpack/core/metrics/bleu.hpp>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

int main()
{
  using Tokens = std::vector<std::string>;
  std::vector<std::vector<Tokens>> references = {{{"a", "b", "c", "a"}}};
  std::vector<Tokens> translations = {{"a", "b", "c", "a", "b"}};
  mlpack::BLEU<> bleu(3);  // BLEU<float>: mlpack's default
  const double observed = bleu.Evaluate(references, translations);
  // p1 = 4/5, p2 = 3/4, p3 = 2/3, c = 5 > r = 4 so BP = 1: BLEU = (4/5 * 3/4 * 2/3)^(1/3) = 0.4^(1/3).
  const double documented = std::cbrt(0.4);
  // JSON has no NaN: a NaN goes by name
  std::printf(std::isnan(observed) ? "{\"observed\": \"NaN\", " : "{\"observed\": %.17g, ", observed);
  std::printf("\"documented\": %.17g, \"shown\": \"%.17g\"}\n", documented, observed);
  return 0;
}
