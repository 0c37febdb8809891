// Gaussian-process regression over points of the unit cube, the model behind the Bayesian
// suggester (tuning/suggest.h). Pure and deterministic; a move-only value, not thread-safe to
// mutate (`Believe`) while another thread reads it.
//
// The prior mean is the worst (smallest) output, and the outputs are scaled by their root mean
// square distance from it. Far from the data the GP so expects nothing better than the worst
// trial, and EI looks there for the variance alone, not for a mean pulled up by the good trials:
// the "pessimistic" constant mean of De Ath, Fieldsend and Everson ("What do you mean? The role
// of the mean function in Bayesian optimisation", GECCO 2020), which keeps the search from
// spreading over the corners of a higher-dimensional box (bench/RESULTS.md, tuning notes: with
// the outputs' mean instead, Levy-10 ended 0.5 behind CMA-ES at 100 trials). The kernel is
// Matérn-5/2 with one length scale per coordinate, a signal variance and a noise variance. `Fit`
// chooses them by maximising the log marginal likelihood plus weak log-normal priors on the
// length scales and the signal variance, with analytic gradients and L-BFGS from the best of a
// few fixed starting points; length scales stay within [0.01, 10], the signal variance within
// [0.05, 20] and the noise variance within [1e-6, 1] (in units of the squared scale), which keeps
// the Cholesky factor sound.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

namespace trainyard::tuning {

struct GpHyperparameters {
  std::vector<double> length_scales;  // one per coordinate, in unit-cube units
  double signal_variance = 1;         // in units of the outputs' variance
  double noise_variance = 1e-4;       // in units of the outputs' variance
};

struct GpPrediction {
  double mean = 0;      // in the outputs' units
  double variance = 0;  // of the latent function (noise excluded), in squared outputs' units
};

class GaussianProcess {
 public:
  // A GP through `values` at `points` (row-major: values.size() points of `dims` coordinates in
  // [0, 1]), its hyperparameters fitted. At least one point; every number finite (checked).
  // With `fit_subset` (indices of points, at least one), the hyperparameters are fitted to those
  // points alone and the GP then conditioned on all of them: the fit costs O(m^3) per likelihood
  // evaluation for m points, a few dozen evaluations, so a bounded subset bounds its time while
  // the posterior still sees every observation.
  static GaussianProcess Fit(std::span<const double> points, std::size_t dims,
                             std::span<const double> values,
                             std::span<const std::size_t> fit_subset = {});
  // The same with given hyperparameters (length_scales.size() == dims).
  static GaussianProcess WithHyperparameters(std::span<const double> points, std::size_t dims,
                                             std::span<const double> values,
                                             GpHyperparameters hyperparameters);

  GaussianProcess(GaussianProcess&&) noexcept;
  GaussianProcess& operator=(GaussianProcess&&) noexcept;
  ~GaussianProcess();

  std::size_t dims() const;
  std::size_t size() const;  // observations, believed points included
  const GpHyperparameters& hyperparameters() const;
  // Of the standardised outputs given to Fit/WithHyperparameters (believed points not counted).
  double log_marginal_likelihood() const;

  GpPrediction Predict(std::span<const double> point) const;
  // Also the gradients of mean and variance with respect to the point's coordinates (each of
  // size dims()).
  GpPrediction Predict(std::span<const double> point, std::span<double> d_mean,
                       std::span<double> d_variance) const;
  // Row-major points, one prediction each; faster than one at a time.
  std::vector<GpPrediction> PredictMany(std::span<const double> points) const;

  // Kriging believer: conditions on the posterior mean at `point` as if observed exactly (no
  // noise), keeping the hyperparameters and the standardisation, and returns that mean. The mean
  // stays as it was everywhere; the variance at `point` drops to zero and shrinks around it.
  double Believe(std::span<const double> point);

 private:
  struct State;
  explicit GaussianProcess(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace trainyard::tuning
