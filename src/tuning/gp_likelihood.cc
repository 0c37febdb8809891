#include "tuning/gp_likelihood.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numbers>
#include <utility>
#include <vector>

#include "tuning/lbfgs.h"
#include "tuning/matern_kernel.h"

namespace trainyard::tuning {
namespace {

// Bounds and weak log-normal priors of the hyperparameters (natural logs; variances in units of
// the standardised outputs' variance). The priors only break near-ties the data leave open; the
// bounds keep K well conditioned (noise >= 1e-6 of the signal's scale).
struct LogBound {
  double low;
  double high;
  double prior_mean;
  double prior_sd;  // 0: no prior, the bounds alone
};
const LogBound kLengthScale{std::log(0.01), std::log(10.0), std::log(0.5), 1.5};
const LogBound kSignalVariance{std::log(0.05), std::log(20.0), 0.0, 1.5};
// No prior on the noise: a deterministic objective should get the smallest noise the data allow.
const LogBound kNoiseVariance{std::log(1e-6), std::log(1.0), 0.0, 0.0};

// Candidate starting points: each length scale (all coordinates alike) with each noise variance
// and signal variance 1. The fit runs L-BFGS from the few with the best posterior; the best
// optimum wins. Deterministic, and about 2 x 30 gradient evaluations.
constexpr std::array<double, 5> kStartLengthScales = {0.1, 0.25, 0.5, 1.0, 2.5};
constexpr std::array<double, 2> kStartNoises = {1e-5, 1e-2};
constexpr std::size_t kOptimisedStarts = 2;
constexpr LbfgsOptions kFitOptions{
    .max_iterations = 40, .memory = 8, .gradient_tolerance = 1e-4, .value_tolerance = 1e-7};

constexpr std::array<double, 4> kJitters = {1e-10, 1e-8, 1e-6, 1e-4};

const LogBound& BoundOf(Eigen::Index i, Eigen::Index dims) {
  if (i < dims) {
    return kLengthScale;
  }
  return i == dims ? kSignalVariance : kNoiseVariance;
}

double Sigmoid(double z) {
  return 1 / (1 + std::exp(-z));
}

// The optimiser works on unbounded z; the log parameter is low + (high - low) sigmoid(z).
double FromFree(double z, const LogBound& bound) {
  return bound.low + (bound.high - bound.low) * Sigmoid(z);
}

double ToFree(double log_param, const LogBound& bound) {
  const double t = (log_param - bound.low) / (bound.high - bound.low);
  const double clamped = std::clamp(t, 1e-6, 1 - 1e-6);
  return std::log(clamped / (1 - clamped));
}

}  // namespace

bool FactorWithJitter(const Eigen::MatrixXd& k, Eigen::LLT<Eigen::MatrixXd>& llt, double& jitter) {
  jitter = 0;
  llt.compute(k);
  if (llt.info() == Eigen::Success) {
    return true;
  }
  const double scale = k.diagonal().mean();
  for (const double relative : kJitters) {
    jitter = relative * scale;
    Eigen::MatrixXd jittered = k;
    jittered.diagonal().array() += jitter;
    llt.compute(jittered);
    if (llt.info() == Eigen::Success) {
      return true;
    }
  }
  return false;
}

namespace {

// Evaluates the log marginal likelihood of one data set again and again (the fit's inner loop),
// reusing its n x n buffers: allocating them afresh costs as much as the arithmetic.
class LikelihoodEvaluator {
 public:
  LikelihoodEvaluator(const Eigen::MatrixXd& x, const Eigen::VectorXd& y) : x_(x), y_(y) {}

  double operator()(const Eigen::VectorXd& log_params, Eigen::VectorXd* gradient) {
    const Eigen::Index n = x_.rows();
    const Eigen::Index dims = x_.cols();
    const Eigen::VectorXd inverse_length = (-log_params.head(dims)).array().exp();
    const double signal = std::exp(log_params[dims]);
    const double noise = std::exp(log_params[dims + 1]);
    scaled_.noalias() = x_ * inverse_length.asDiagonal();
    ScaledDistancesInto(scaled_, scaled_, distances_);
    // exp(-sqrt5 r), shared by the kernel and its slope.
    decay_ = (-kSqrt5 * distances_.array()).exp();
    signal_part_ = signal *
                   (1 + kSqrt5 * distances_.array() + (5.0 / 3.0) * distances_.array().square()) *
                   decay_.array();
    k_ = signal_part_;
    k_.diagonal().array() += noise;
    double jitter = 0;
    if (!FactorWithJitter(k_, llt_, jitter)) {
      return -std::numeric_limits<double>::infinity();
    }
    alpha_ = llt_.solve(y_);
    const double log_det_half = llt_.matrixLLT().diagonal().array().log().sum();
    const double value = -0.5 * y_.dot(alpha_) - log_det_half -
                         0.5 * static_cast<double>(n) * std::log(2 * std::numbers::pi);
    if (gradient == nullptr) {
      return value;
    }
    // d/dtheta = 1/2 tr(W dK/dtheta) with W = alpha alpha' - K^-1 = alpha alpha' - L^-T L^-1:
    // its lower triangle by a symmetric rank update (half a product), then its upper one.
    inverse_factor_.setIdentity(n, n);
    llt_.matrixL().solveInPlace(inverse_factor_);
    w_.noalias() = alpha_ * alpha_.transpose();
    w_.selfadjointView<Eigen::Lower>().rankUpdate(inverse_factor_.transpose(), -1.0);
    for (Eigen::Index j = 1; j < n; ++j) {
      w_.col(j).head(j) = w_.row(j).head(j).transpose();
    }
    gradient->resize(dims + 2);
    (*gradient)[dims] = 0.5 * (w_.array() * signal_part_.array()).sum();
    (*gradient)[dims + 1] = 0.5 * noise * w_.trace();
    // dK_pq/dlog l_i = signal slope(r_pq) (scaled_pi - scaled_qi)^2, and for symmetric G,
    // sum_pq G_pq (a_p - a_q)^2 = 2 sum_p a_p^2 (G 1)_p - 2 a' G a.
    g_ = w_.array() * (signal * 5.0 / 3.0) * (1 + kSqrt5 * distances_.array()) * decay_.array();
    row_sums_ = g_.rowwise().sum();
    g_scaled_.noalias() = g_ * scaled_;
    for (Eigen::Index i = 0; i < dims; ++i) {
      const auto column = scaled_.col(i);
      (*gradient)[i] = column.cwiseAbs2().dot(row_sums_) - column.dot(g_scaled_.col(i));
    }
    return value;
  }

 private:
  const Eigen::MatrixXd& x_;
  const Eigen::VectorXd& y_;
  Eigen::MatrixXd scaled_;
  Eigen::MatrixXd distances_;
  Eigen::MatrixXd decay_;
  Eigen::MatrixXd signal_part_;
  Eigen::MatrixXd k_;
  Eigen::LLT<Eigen::MatrixXd> llt_;
  Eigen::VectorXd alpha_;
  Eigen::MatrixXd inverse_factor_;
  Eigen::MatrixXd w_;
  Eigen::MatrixXd g_;
  Eigen::VectorXd row_sums_;
  Eigen::MatrixXd g_scaled_;
};

}  // namespace

double GpLogMarginalLikelihood(const Eigen::MatrixXd& x, const Eigen::VectorXd& y,
                               const Eigen::VectorXd& log_params, Eigen::VectorXd* gradient) {
  return LikelihoodEvaluator(x, y)(log_params, gradient);
}

GpHyperparameters FitGpHyperparameters(const Eigen::MatrixXd& x, const Eigen::VectorXd& y) {
  const Eigen::Index dims = x.cols();
  const Eigen::Index size = dims + 2;
  LikelihoodEvaluator likelihood(x, y);
  // -(log likelihood + log prior) at the free variables z, and its gradient when asked.
  const auto posterior = [&](const Eigen::VectorXd& z, Eigen::VectorXd* gradient) {
    Eigen::VectorXd log_params(size);
    for (Eigen::Index i = 0; i < size; ++i) {
      log_params[i] = FromFree(z[i], BoundOf(i, dims));
    }
    Eigen::VectorXd lml_gradient;
    double value = likelihood(log_params, gradient == nullptr ? nullptr : &lml_gradient);
    if (!std::isfinite(value)) {
      return std::numeric_limits<double>::infinity();
    }
    if (gradient != nullptr) {
      gradient->resize(size);
    }
    for (Eigen::Index i = 0; i < size; ++i) {
      const LogBound& bound = BoundOf(i, dims);
      double d_log_param = gradient == nullptr ? 0 : lml_gradient[i];
      if (bound.prior_sd > 0) {
        const double deviation = (log_params[i] - bound.prior_mean) / bound.prior_sd;
        value -= 0.5 * deviation * deviation;
        d_log_param -= deviation / bound.prior_sd;
      }
      if (gradient != nullptr) {
        const double s = Sigmoid(z[i]);
        (*gradient)[i] = -d_log_param * (bound.high - bound.low) * s * (1 - s);
      }
    }
    return -value;
  };
  // Screen the starting points by their value; optimise from the best few.
  std::vector<std::pair<double, Eigen::VectorXd>> starts;
  for (const double length_scale : kStartLengthScales) {
    for (const double noise : kStartNoises) {
      Eigen::VectorXd z(size);
      for (Eigen::Index i = 0; i < dims; ++i) {
        z[i] = ToFree(std::log(length_scale), kLengthScale);
      }
      z[dims] = ToFree(0.0, kSignalVariance);
      z[dims + 1] = ToFree(std::log(noise), kNoiseVariance);
      starts.emplace_back(posterior(z, nullptr), std::move(z));
    }
  }
  std::ranges::stable_sort(starts, {}, &std::pair<double, Eigen::VectorXd>::first);
  starts.resize(kOptimisedStarts);
  const Objective objective = [&](const Eigen::VectorXd& z, Eigen::VectorXd& gradient) {
    return posterior(z, &gradient);
  };
  for (auto& [value, z] : starts) {
    value = MinimizeLbfgs(objective, z, kFitOptions);
  }
  const Eigen::VectorXd& best =
      std::ranges::min_element(starts, {}, &std::pair<double, Eigen::VectorXd>::first)->second;
  GpHyperparameters out;
  out.length_scales.resize(static_cast<std::size_t>(dims));
  for (Eigen::Index i = 0; i < dims; ++i) {
    out.length_scales[static_cast<std::size_t>(i)] = std::exp(FromFree(best[i], kLengthScale));
  }
  out.signal_variance = std::exp(FromFree(best[dims], kSignalVariance));
  out.noise_variance = std::exp(FromFree(best[dims + 1], kNoiseVariance));
  return out;
}

}  // namespace trainyard::tuning
