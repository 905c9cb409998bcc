// The local construction of the convolution (convolution_search.h) against the full listing
// (convolution_facets, a different enumeration: a sweep of Gauss-sphere caps over every
// feature pair):
//  - the search hands out exactly the listed facets (same feature pairs), nearest first, each
//    key below the distance of the facet's corners and of dense samples of its points;
//  - phong_distance_convolution with the local search returns the full listing's answer on
//    random poses of non-convex pairs (U-shaped voxel mesh against boxes and a torus);
//  - a warm-started query returns the cold answer along a coherent path.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <tuple>
#include <vector>

#include "collision/phong/convolution_search.h"
#include "collision/phong/phong_convolution.h"
#include "collision/shape/procedural_mesh.h"
#include "collision/shape/triangle_mesh.h"
#include "tests/random_draws.h"

namespace impetus {
namespace {

using test::random_rotation;  // one draw per statement (tests/random_draws.h)

using FacetId = std::tuple<int, int, int>;  // kind, B feature, A feature
FacetId id_of(const ConvolutionFacet& f) {
  return {static_cast<int>(f.kind), f.b_feature, f.a_feature};
}

// The smallest norm over a dense grid of points of the facet (barycentric steps of 1/20).
double sampled_min_norm(const ConvolutionFacet& f) {
  double best = 1e300;
  const int n = 20;
  for (int i = 0; i <= n; ++i) {
    for (int j = 0; j <= n; ++j) {
      const double s = static_cast<double>(i) / n, t = static_cast<double>(j) / n;
      Vec3 p;
      if (f.corners == 4) {
        p = f.points[0] + s * (f.points[1] - f.points[0]) + t * (f.points[3] - f.points[0]);
      } else {
        if (i + j > n) continue;
        p = f.points[0] + s * (f.points[1] - f.points[0]) + t * (f.points[2] - f.points[0]);
      }
      best = std::min(best, p.norm());
    }
  }
  return best;
}

struct Pair {
  std::shared_ptr<const ConvolutionMesh> a, b;
};

Pair u_and_torus() {
  return {convolution_mesh_of(Shape::triangle_mesh(u_mesh(0.25))),
          convolution_mesh_of(Shape::triangle_mesh(torus_mesh(0.3, 0.1, 16, 8)))};
}

TEST(PhongLocal, SearchHandsOutTheListedFacetsNearestFirst) {
  // Drained without a limit, the search must produce every facet of the full listing once and
  // nothing else; the keys must not decrease and must stay below the facet's points.
  const Pair p = u_and_torus();
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> uni(-1.0, 1.0);
  for (int k = 0; k < 6; ++k) {
    Pose pa, pb;
    pa.orientation = random_rotation(rng);
    pb.orientation = random_rotation(rng);
    pb.position = pa.apply(test::draw_vec3(uni, rng).cwiseProduct(Vec3(0.8, 0.8, 0.4)));
    const ConvolutionPair pair = place_convolution_pair(*p.a, pa, *p.b, pb);
    std::multiset<FacetId> listed;
    for (const ConvolutionFacet& f : convolution_facets(pair)) listed.insert(id_of(f));
    ConvolutionSearch search(pair);
    std::multiset<FacetId> found;
    double last = -1e300;
    int checked = 0;
    while (!search.done()) {
      const double bound = search.bound();
      EXPECT_GE(bound, last - 1e-15) << k;  // nondecreasing keys
      ConvolutionFacet f;
      double key = 0;
      if (!search.step(&f, &key)) continue;
      EXPECT_EQ(key, bound);
      last = key;
      found.insert(id_of(f));
      for (int c = 0; c < f.corners; ++c) EXPECT_LE(key, f.points[c].norm()) << k;
      if (checked++ % 10 == 0) {
        EXPECT_LE(key, sampled_min_norm(f)) << k;
      }
    }
    EXPECT_EQ(found, listed) << k;
    EXPECT_EQ(search.facets_built(), listed.size());
    EXPECT_GT(listed.size(), 100u);
  }
}

void expect_same(const PhongDistanceResult& x, const PhongDistanceResult& y, const char* what,
                 int k) {
  EXPECT_EQ(x.converged, y.converged) << what << " " << k;
  EXPECT_EQ(x.crease, y.crease) << what << " " << k;
  EXPECT_NEAR(x.distance, y.distance, 1e-9) << what << " " << k;
  EXPECT_LT((x.point - y.point).norm(), 1e-9) << what << " " << k;
  EXPECT_LT((x.direction - y.direction).norm(), 1e-9) << what << " " << k;
}

TEST(PhongLocal, LocalSearchEqualsFullListingOnRandomPoses) {
  // Boxes (12 triangles, sharp normals), a gridded box as a mesh and a torus, at random poses
  // round the U's notch and prongs, apart and overlapping.
  const auto u = convolution_mesh_of(Shape::triangle_mesh(u_mesh(0.25)));
  const auto ring = convolution_mesh_of(Shape::triangle_mesh(torus_mesh(0.3, 0.1, 16, 8)));
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> uni(-1.0, 1.0);
  int overlapping = 0, separated = 0, creases = 0;
  std::size_t local_facets = 0, full_facets = 0;
  for (int k = 0; k < 36; ++k) {
    std::shared_ptr<const ConvolutionMesh> other = ring;
    if (k % 3 == 0) {
      other = convolution_mesh_of(
          Shape::box(Vec3::Constant(0.1) + 0.1 * test::draw_vec3(uni, rng).cwiseAbs()));
    }
    Pose pa, rel;
    pa.orientation = random_rotation(rng);
    pa.position = test::draw_vec3(uni, rng);
    rel.orientation = k % 2 == 0 ? random_rotation(rng)
                                 : Quat(Eigen::AngleAxisd(0.3 * uni(rng), Vec3::UnitY()));
    const Vec3 r = test::draw_vec3(uni, rng);
    rel.position = Vec3(0.9 * r.x(), 0.9 * r.y() + 0.1, 0.4 * r.z());
    if (k % 4 == 1) rel.position.y() = 1.5 + 0.1 * uni(rng);  // beyond the prongs' ends
    const Pose pb = pa * rel;
    const PhongDistanceResult local =
        phong_distance_convolution(*u, pa, *other, pb, {}, ConvolutionListing::Local);
    const PhongDistanceResult full =
        phong_distance_convolution(*u, pa, *other, pb, {}, ConvolutionListing::Full);
    expect_same(local, full, "local vs full", k);
    (full.distance < 0 ? overlapping : separated) += 1;
    creases += full.crease;
    local_facets += local.convolution_facets;
    full_facets += full.convolution_facets;
  }
  EXPECT_GE(overlapping, 8);
  EXPECT_GE(separated, 8);
  EXPECT_GE(creases, 1);
  EXPECT_LT(local_facets, full_facets / 4);  // it is local
}

TEST(PhongLocal, WarmQueryEqualsColdAlongAPath) {
  // The bench's motion at a coarser tessellation: the torus passes through the U's notch into
  // a prong while turning; each frame warm-started from the previous one's direction.
  const auto u = convolution_mesh_of(Shape::triangle_mesh(u_mesh(0.25)));
  const auto ring = convolution_mesh_of(Shape::triangle_mesh(torus_mesh(0.3, 0.1, 24, 12)));
  const int count = 40;
  std::vector<Pose> pa(count), pb(count);
  for (int i = 0; i < count; ++i) {
    const double t = static_cast<double>(i) / (count - 1);
    pa[i].orientation = Quat(Eigen::AngleAxisd(0.4, Vec3(1.0, 2.0, 3.0).normalized()));
    const Quat upright(Eigen::AngleAxisd(0.5 * kPi, Vec3::UnitY()));
    pb[i].orientation =
        pa[i].orientation * Quat(Eigen::AngleAxisd(0.8 * t, Vec3::UnitY())) * upright;
    pb[i].position = pa[i].apply(Vec3(-0.1 + 0.75 * t, 0.1 - 0.4 * t, 0.05));
  }
  std::vector<PhongDistanceResult> cold(count);
  for (int i = 0; i < count; ++i) {
    cold[i] = phong_distance_convolution(*u, pa[i], *ring, pb[i], {}, ConvolutionListing::Local);
  }
  Vec3 previous = Vec3::Zero();
  std::size_t warm_facets = 0, cold_facets = 0;
  int creases = 0;
  for (int i = 0; i < count; ++i) {
    PhongDistanceOptions options;
    if (i > 0) options.warm_start = &previous;
    const PhongDistanceResult warm =
        phong_distance_convolution(*u, pa[i], *ring, pb[i], options, ConvolutionListing::Local);
    expect_same(warm, cold[i], "warm vs cold", i);
    previous = warm.direction;
    if (i > 0) {
      warm_facets += warm.convolution_facets;
      cold_facets += cold[i].convolution_facets;
    }
    creases += cold[i].crease;
  }
  EXPECT_GE(creases, 5);  // the path does reach the two-contact creases
  EXPECT_LT(warm_facets, cold_facets);  // and the warm start does cut the facets built
  // A wrong warm start (a direction that is no previous result) changes nothing either.
  const Vec3 wrong(0.0, 0.0, 1.0);
  PhongDistanceOptions options;
  options.warm_start = &wrong;
  expect_same(phong_distance_convolution(*u, pa[30], *ring, pb[30], options), cold[30],
              "wrong warm start", 30);
}

}  // namespace
}  // namespace impetus
