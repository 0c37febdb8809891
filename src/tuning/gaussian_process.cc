#include "tuning/gaussian_process.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "base/check.h"
#include "tuning/gp_likelihood.h"
#include "tuning/matern_kernel.h"

namespace trainyard::tuning {

struct GaussianProcess::State {
  std::size_t dims = 0;
  GpHyperparameters hyperparameters;
  Eigen::VectorXd inverse_length;  // 1 / length scale, per coordinate
  Eigen::MatrixXd scaled;          // the points, one per row, divided by the length scales
  Eigen::MatrixXd factor;          // lower Cholesky factor of K + jitter I
  Eigen::VectorXd y;               // standardised outputs
  Eigen::VectorXd alpha;           // K^-1 y
  double output_mean = 0;          // outputs = output_mean + output_scale * y; the worst output
  double output_scale = 1;
  double jitter = 0;
  double log_marginal_likelihood = 0;

  void SolveAlpha() {
    alpha = factor.triangularView<Eigen::Lower>().solve(y);
    factor.triangularView<Eigen::Lower>().transpose().solveInPlace(alpha);
  }
};

namespace {

// The smallest squared pivot a believed point adds, relative to the signal variance.
constexpr double kMinPivot = 1e-10;

struct Data {
  Eigen::MatrixXd x;
  Eigen::VectorXd y;  // standardised
  double mean = 0;
  double scale = 1;
};

Data Standardise(std::span<const double> points, std::size_t dims, std::span<const double> values) {
  TY_CHECK(!values.empty() && points.size() == values.size() * dims)
      << points.size() << " coordinates for " << values.size() << " values of " << dims;
  const auto n = static_cast<Eigen::Index>(values.size());
  Data data;
  data.x = Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
      points.data(), n, static_cast<Eigen::Index>(dims));
  const Eigen::Map<const Eigen::VectorXd> y(values.data(), n);
  TY_CHECK(data.x.allFinite() && y.allFinite()) << "GP data must be finite";
  // The prior mean is the worst output (see the header), and the scale the outputs' root mean
  // square distance from it, computed relative to the largest distance so it cannot overflow.
  data.mean = y.minCoeff();
  const double largest = (y.array() - data.mean).abs().maxCoeff();
  const double spread =
      largest > 0 ? largest * std::sqrt(((y.array() - data.mean) / largest).square().mean()) : 0;
  data.scale = spread > 1e-12 * (1 + std::abs(data.mean)) ? spread : 1.0;
  data.y = (y.array() - data.mean) / data.scale;
  return data;
}

}  // namespace

GaussianProcess::GaussianProcess(std::unique_ptr<State> state) : state_(std::move(state)) {}
GaussianProcess::GaussianProcess(GaussianProcess&&) noexcept = default;
GaussianProcess& GaussianProcess::operator=(GaussianProcess&&) noexcept = default;
GaussianProcess::~GaussianProcess() = default;

GaussianProcess GaussianProcess::Fit(std::span<const double> points, std::size_t dims,
                                     std::span<const double> values,
                                     std::span<const std::size_t> fit_subset) {
  if (fit_subset.empty()) {
    const Data data = Standardise(points, dims, values);
    return WithHyperparameters(points, dims, values, FitGpHyperparameters(data.x, data.y));
  }
  std::vector<double> subset_points;
  std::vector<double> subset_values;
  for (const std::size_t i : fit_subset) {
    TY_CHECK(i < values.size()) << "fit subset index " << i << " of " << values.size();
    subset_points.insert(subset_points.end(),
                         points.begin() + static_cast<std::ptrdiff_t>(i * dims),
                         points.begin() + static_cast<std::ptrdiff_t>((i + 1) * dims));
    subset_values.push_back(values[i]);
  }
  const Data subset = Standardise(subset_points, dims, subset_values);
  GpHyperparameters fitted = FitGpHyperparameters(subset.x, subset.y);
  // The variances are in units of the outputs' variance: the subset's, which differ from all
  // the outputs'.
  const double ratio = subset.scale / Standardise(points, dims, values).scale;
  fitted.signal_variance *= ratio * ratio;
  fitted.noise_variance *= ratio * ratio;
  return WithHyperparameters(points, dims, values, std::move(fitted));
}

GaussianProcess GaussianProcess::WithHyperparameters(std::span<const double> points,
                                                     std::size_t dims,
                                                     std::span<const double> values,
                                                     GpHyperparameters hyperparameters) {
  TY_CHECK(hyperparameters.length_scales.size() == dims)
      << hyperparameters.length_scales.size() << " length scales for " << dims << " coordinates";
  Data data = Standardise(points, dims, values);
  auto state = std::make_unique<State>();
  state->dims = dims;
  state->inverse_length = Eigen::Map<const Eigen::VectorXd>(hyperparameters.length_scales.data(),
                                                            static_cast<Eigen::Index>(dims))
                              .cwiseInverse();
  state->scaled = data.x * state->inverse_length.asDiagonal();
  Eigen::VectorXd log_params(static_cast<Eigen::Index>(dims) + 2);
  log_params.head(static_cast<Eigen::Index>(dims)) = -state->inverse_length.array().log();
  log_params[static_cast<Eigen::Index>(dims)] = std::log(hyperparameters.signal_variance);
  log_params[static_cast<Eigen::Index>(dims) + 1] = std::log(hyperparameters.noise_variance);
  state->log_marginal_likelihood = GpLogMarginalLikelihood(data.x, data.y, log_params, nullptr);
  Eigen::MatrixXd k =
      hyperparameters.signal_variance *
      ScaledDistances(state->scaled, state->scaled).unaryExpr([](double r) { return Matern52(r); });
  k.diagonal().array() += hyperparameters.noise_variance;
  Eigen::LLT<Eigen::MatrixXd> llt;
  TY_CHECK(FactorWithJitter(k, llt, state->jitter)) << "GP covariance is not positive definite";
  state->factor = llt.matrixL();
  state->y = std::move(data.y);
  state->output_mean = data.mean;
  state->output_scale = data.scale;
  state->hyperparameters = std::move(hyperparameters);
  state->SolveAlpha();
  return GaussianProcess(std::move(state));
}

std::size_t GaussianProcess::dims() const {
  return state_->dims;
}

std::size_t GaussianProcess::size() const {
  return static_cast<std::size_t>(state_->y.size());
}

const GpHyperparameters& GaussianProcess::hyperparameters() const {
  return state_->hyperparameters;
}

double GaussianProcess::log_marginal_likelihood() const {
  return state_->log_marginal_likelihood;
}

GpPrediction GaussianProcess::Predict(std::span<const double> point) const {
  return PredictMany(point).front();
}

GpPrediction GaussianProcess::Predict(std::span<const double> point, std::span<double> d_mean,
                                      std::span<double> d_variance) const {
  const State& s = *state_;
  TY_CHECK(point.size() == s.dims && d_mean.size() == s.dims && d_variance.size() == s.dims)
      << "point of " << point.size() << " coordinates for a GP over " << s.dims;
  const double signal = s.hyperparameters.signal_variance;
  const Eigen::RowVectorXd x =
      Eigen::Map<const Eigen::RowVectorXd>(point.data(), static_cast<Eigen::Index>(s.dims))
          .cwiseProduct(s.inverse_length.transpose());
  // differences.row(p) = x - scaled.row(p), in length-scale units.
  const Eigen::MatrixXd differences = (-s.scaled).rowwise() + x;
  const Eigen::VectorXd r = differences.rowwise().norm();
  const Eigen::VectorXd k = r.unaryExpr([&](double d) { return signal * Matern52(d); });
  const Eigen::VectorXd slope = r.unaryExpr([&](double d) { return signal * Matern52Slope(d); });
  const Eigen::VectorXd v = s.factor.triangularView<Eigen::Lower>().solve(k);
  const Eigen::VectorXd w = s.factor.triangularView<Eigen::Lower>().transpose().solve(v);
  // dk_p/dx_i = -slope_p (x_i - point_pi) / l_i^2.
  const Eigen::VectorXd mean_sum = differences.transpose() * slope.cwiseProduct(s.alpha);
  const Eigen::VectorXd variance_sum = differences.transpose() * slope.cwiseProduct(w);
  const double scale = s.output_scale;
  for (std::size_t i = 0; i < s.dims; ++i) {
    const auto index = static_cast<Eigen::Index>(i);
    d_mean[i] = -scale * s.inverse_length[index] * mean_sum[index];
    d_variance[i] = 2 * scale * scale * s.inverse_length[index] * variance_sum[index];
  }
  const double variance = signal - v.squaredNorm();
  if (variance <= 0) {
    std::fill(d_variance.begin(), d_variance.end(), 0.0);
  }
  return {.mean = s.output_mean + scale * k.dot(s.alpha),
          .variance = scale * scale * std::max(variance, 0.0)};
}

std::vector<GpPrediction> GaussianProcess::PredictMany(std::span<const double> points) const {
  const State& s = *state_;
  TY_CHECK(points.size() % s.dims == 0) << points.size() << " is not a multiple of " << s.dims;
  const auto m = static_cast<Eigen::Index>(points.size() / s.dims);
  const Eigen::MatrixXd x =
      Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
          points.data(), m, static_cast<Eigen::Index>(s.dims)) *
      s.inverse_length.asDiagonal();
  const double signal = s.hyperparameters.signal_variance;
  Eigen::MatrixXd k =
      ScaledDistances(s.scaled, x).unaryExpr([&](double r) { return signal * Matern52(r); });
  const Eigen::VectorXd means = k.transpose() * s.alpha;
  s.factor.triangularView<Eigen::Lower>().solveInPlace(k);
  const Eigen::VectorXd explained = k.colwise().squaredNorm().transpose();
  const double scale = s.output_scale;
  std::vector<GpPrediction> out(static_cast<std::size_t>(m));
  for (Eigen::Index j = 0; j < m; ++j) {
    out[static_cast<std::size_t>(j)] = {
        .mean = s.output_mean + scale * means[j],
        .variance = scale * scale * std::max(signal - explained[j], 0.0)};
  }
  return out;
}

double GaussianProcess::Believe(std::span<const double> point) {
  State& s = *state_;
  TY_CHECK(point.size() == s.dims) << "point of " << point.size() << " for a GP over " << s.dims;
  const Eigen::RowVectorXd x =
      Eigen::Map<const Eigen::RowVectorXd>(point.data(), static_cast<Eigen::Index>(s.dims))
          .cwiseProduct(s.inverse_length.transpose());
  const double signal = s.hyperparameters.signal_variance;
  const Eigen::VectorXd k = ((-s.scaled).rowwise() + x).rowwise().norm().unaryExpr([&](double r) {
    return signal * Matern52(r);
  });
  const Eigen::VectorXd row = s.factor.triangularView<Eigen::Lower>().solve(k);
  const double y = k.dot(s.alpha);  // the posterior mean, standardised
  // The new pivot is the posterior variance at `point` (no noise: the belief is exact), kept
  // off zero for a point on top of an earlier one.
  const double pivot =
      std::sqrt(std::max(signal + s.jitter - row.squaredNorm(), kMinPivot * signal));
  const Eigen::Index n = s.factor.rows();
  s.factor.conservativeResize(n + 1, n + 1);
  s.factor.row(n).head(n) = row.transpose();
  s.factor.col(n).head(n).setZero();
  s.factor(n, n) = pivot;
  s.scaled.conservativeResize(n + 1, Eigen::NoChange);
  s.scaled.row(n) = x;
  s.y.conservativeResize(n + 1);
  s.y[n] = y;
  s.SolveAlpha();
  return s.output_mean + s.output_scale * y;
}

}  // namespace trainyard::tuning
