// The GP's marginal likelihood, its hyperparameter fit, and the jittered Cholesky factorisation
// both use. Internal to tuning/ (Eigen): included only by gaussian_process.cc and gp_likelihood.cc.
#pragma once

#include <Eigen/Cholesky>
#include <Eigen/Core>

#include "tuning/gaussian_process.h"

namespace trainyard::tuning {

// Factorises `k` + jitter I, trying jitter 0 and then 1e-10, 1e-8, 1e-6 and 1e-4 times the mean
// diagonal until the matrix is positive definite. False when it never is; `jitter` gets what was
// added.
bool FactorWithJitter(const Eigen::MatrixXd& k, Eigen::LLT<Eigen::MatrixXd>& llt, double& jitter);

// The log marginal likelihood of outputs `y` at the rows of `x` under hyperparameters `log_params`
// (log length scales, then log signal variance, then log noise variance), and its gradient with
// respect to them when `gradient` is not null. -infinity when the covariance cannot be factorised.
double GpLogMarginalLikelihood(const Eigen::MatrixXd& x, const Eigen::VectorXd& y,
                               const Eigen::VectorXd& log_params, Eigen::VectorXd* gradient);

// The hyperparameters maximising the log marginal likelihood plus the weak priors, within the
// bounds gaussian_process.h states, for standardised outputs `y` at the rows of `x`.
GpHyperparameters FitGpHyperparameters(const Eigen::MatrixXd& x, const Eigen::VectorXd& y);

}  // namespace trainyard::tuning
