// The Matérn-5/2 kernel with one length scale per coordinate (ARD), on Eigen matrices whose rows
// are points. Internal to tuning/: only .cc files include it (Eigen stays out of public headers).
//   k(x, x') = s2 (1 + sqrt5 r + 5/3 r^2) exp(-sqrt5 r),  r^2 = sum_i ((x_i - x'_i) / l_i)^2
#pragma once

#include <cmath>

#include <Eigen/Core>

namespace trainyard::tuning {

inline constexpr double kSqrt5 = 2.2360679774997896964;

// The kernel's value for a scaled distance r, per unit of signal variance.
inline double Matern52(double r) {
  const double a = kSqrt5 * r;
  return (1 + a + a * a / 3) * std::exp(-a);
}

// -(dk/dr) / r per unit of signal variance: 5/3 (1 + sqrt5 r) exp(-sqrt5 r). Finite at r = 0,
// it turns the gradients with respect to coordinates and log length scales into smooth sums.
inline double Matern52Slope(double r) {
  const double a = kSqrt5 * r;
  return 5.0 / 3.0 * (1 + a) * std::exp(-a);
}

// Scaled distances between the rows of `a` and `b` (both already divided by the length scales)
// into `out`, reusing its storage.
inline void ScaledDistancesInto(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b,
                                Eigen::MatrixXd& out) {
  out.noalias() = -2.0 * a * b.transpose();
  out.colwise() += a.rowwise().squaredNorm();
  out.rowwise() += b.rowwise().squaredNorm().transpose();
  out = out.cwiseMax(0.0).cwiseSqrt();
}

inline Eigen::MatrixXd ScaledDistances(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  Eigen::MatrixXd out;
  ScaledDistancesInto(a, b, out);
  return out;
}

}  // namespace trainyard::tuning
