/* mbt/mbt.h: all of mbt's public headers. */
#ifndef MBT_MBT_H
#define MBT_MBT_H
#include "mbt/status.h"
#include "mbt/math.h"
#include "mbt/spatial.h"
#include "mbt/inertia.h"
#include "mbt/tree.h"
#include "mbt/context.h"
#include "mbt/parameters.h"
#include "mbt/forces.h"
#include "mbt/joints.h"
#include "mbt/kinematics.h"
#include "mbt/dynamics.h"
#include "mbt/derivatives.h"
#include "mbt/geometry.h"
#include "mbt/urdf.h"
#include "mbt/contact.h"
#include "mbt/model_instance.h"
#include "mbt/sim.h"
#include "mbt/batch.h"
#endif
