#ifndef RETCON_ECS_INTERNAL_PP_HPP
#define RETCON_ECS_INTERNAL_PP_HPP

// Preprocessor helpers for RETCON_COMPONENT (up to 32 fields per type). Generated; not API.
#define RETCON_PP_NARGS(...)                                                                                           \
    RETCON_PP_NARGS_I(__VA_ARGS__, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, \
                      11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1)
#define RETCON_PP_NARGS_I(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, _17, _18, _19, _20,   \
                          _21, _22, _23, _24, _25, _26, _27, _28, _29, _30, _31, _32, n, ...)                          \
    n
#define RETCON_PP_CAT(a, b) RETCON_PP_CAT_I(a, b)
#define RETCON_PP_CAT_I(a, b) a##b
#define RETCON_PP_MAP(m, t, ...) RETCON_PP_CAT(RETCON_PP_MAP_, RETCON_PP_NARGS(__VA_ARGS__))(m, t, __VA_ARGS__)
#define RETCON_PP_MAP_1(m, t, x) m(t, x)
#define RETCON_PP_MAP_2(m, t, x, ...) m(t, x), RETCON_PP_MAP_1(m, t, __VA_ARGS__)
#define RETCON_PP_MAP_3(m, t, x, ...) m(t, x), RETCON_PP_MAP_2(m, t, __VA_ARGS__)
#define RETCON_PP_MAP_4(m, t, x, ...) m(t, x), RETCON_PP_MAP_3(m, t, __VA_ARGS__)
#define RETCON_PP_MAP_5(m, t, x, ...) m(t, x), RETCON_PP_MAP_4(m, t, __VA_ARGS__)
#define RETCON_PP_MAP_6(m, t, x, ...) m(t, x), RETCON_PP_MAP_5(m, t, __VA_ARGS__)
#define RETCON_PP_MAP_7(m, t, x, ...) m(t, x), RETCON_PP_MAP_6(m, t, __VA_ARGS__)
#define RETCON_PP_MAP_8(m, t, x, ...) m(t, x), RETCON_PP_MAP_7(m, t, __VA_ARGS__)
#define RETCON_PP_MAP_9(m, t, x, ...) m(t, x), RETCON_PP_MAP_8(m, t, __VA_ARGS__)
#define RETCON_PP_MAP_10(m, t, x, ...) m(t, x), RETCON_PP_MAP_9(m, t, __VA_ARGS__)
#define RETCON_PP_MAP_11(m, t, x, ...) m(t, x), RETCON_PP_MAP_10(m, t, __VA_ARGS__)
#define RETCON_PP_MAP_12(m, t, x, ...) m(t, x), RETCON_PP_MAP_11(m, t, __VA_ARGS__)
#define RETCON_PP_MAP_13(m, t, x, ...) m(t, x), RETCON_PP_MAP_12(m, t, __VA_ARGS__)
#define RETCON_PP_MAP_14(m, t, x, ...) m(t, x), RETCON_PP_MAP_13(m, t, __VA_ARGS__)
#define RETCON_PP_MAP_15(m, t, x, ...) m(t, x), RETCON_PP_MAP_14(m, t, __VA_ARGS__)
#define RETCON_PP_MAP_16(m, t, x, ...) m(t, x), RETCON_PP_MAP_15(m, t, __VA_ARGS__)
#define RETCON_PP_MAP_17(m, t, x, ...) m(t, x), RETCON_PP_MAP_16(m, t, __VA_ARGS__)
#define RETCON_PP_MAP_18(m, t, x, ...) m(t, x), RETCON_PP_MAP_17(m, t, __VA_ARGS__)
#define RETCON_PP_MAP_19(m, t, x, ...) m(t, x), RETCON_PP_MAP_18(m, t, __VA_ARGS__)
#define RETCON_PP_MAP_20(m, t, x, ...) m(t, x), RETCON_PP_MAP_19(m, t, __VA_ARGS__)
#define RETCON_PP_MAP_21(m, t, x, ...) m(t, x), RETCON_PP_MAP_20(m, t, __VA_ARGS__)
#define RETCON_PP_MAP_22(m, t, x, ...) m(t, x), RETCON_PP_MAP_21(m, t, __VA_ARGS__)
#define RETCON_PP_MAP_23(m, t, x, ...) m(t, x), RETCON_PP_MAP_22(m, t, __VA_ARGS__)
#define RETCON_PP_MAP_24(m, t, x, ...) m(t, x), RETCON_PP_MAP_23(m, t, __VA_ARGS__)
#define RETCON_PP_MAP_25(m, t, x, ...) m(t, x), RETCON_PP_MAP_24(m, t, __VA_ARGS__)
#define RETCON_PP_MAP_26(m, t, x, ...) m(t, x), RETCON_PP_MAP_25(m, t, __VA_ARGS__)
#define RETCON_PP_MAP_27(m, t, x, ...) m(t, x), RETCON_PP_MAP_26(m, t, __VA_ARGS__)
#define RETCON_PP_MAP_28(m, t, x, ...) m(t, x), RETCON_PP_MAP_27(m, t, __VA_ARGS__)
#define RETCON_PP_MAP_29(m, t, x, ...) m(t, x), RETCON_PP_MAP_28(m, t, __VA_ARGS__)
#define RETCON_PP_MAP_30(m, t, x, ...) m(t, x), RETCON_PP_MAP_29(m, t, __VA_ARGS__)
#define RETCON_PP_MAP_31(m, t, x, ...) m(t, x), RETCON_PP_MAP_30(m, t, __VA_ARGS__)
#define RETCON_PP_MAP_32(m, t, x, ...) m(t, x), RETCON_PP_MAP_31(m, t, __VA_ARGS__)

#endif
