"""Builds blockwire's extension module with the project's own CMake (pyproject.toml has the package's metadata).

The module is CMake's target _blockwire, configured for the interpreter that runs this (Python_EXECUTABLE) in
setuptools' build directory, or built in BLOCKWIRE_CMAKE_BUILD_DIR when that names a configured build tree (one
that already has the module: the libraries are not built twice). CMAKE_BUILD_PARALLEL_LEVEL sets the jobs."""

import os
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build = os.environ.get('BLOCKWIRE_CMAKE_BUILD_DIR') or os.path.join(os.path.abspath(self.build_temp), 'cmake')
        if not os.path.exists(os.path.join(build, 'CMakeCache.txt')):
            generator = ['-G', 'Ninja'] if shutil.which('ninja') else []
            subprocess.run(['cmake', '-S', HERE, '-B', build, *generator, '-DCMAKE_BUILD_TYPE=Release',
                            f'-DPython_EXECUTABLE={sys.executable}', '-DBLOCKWIRE_PYTHON=ON', '-DBLOCKWIRE_BUILD_TESTS=OFF',
                            '-DBLOCKWIRE_BUILD_BENCH=OFF', '-DBLOCKWIRE_BUILD_APPS=OFF'], check=True)
        subprocess.run(['cmake', '--build', build, '--target', '_blockwire'], check=True)
        package = os.path.join(build, 'python', 'blockwire')
        built = [f for f in os.listdir(package) if f.startswith('_blockwire.') and f.endswith('.so')]
        if len(built) != 1:
            sys.exit(f'setup.py: expected one _blockwire module in {package}, found {built}')
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(os.path.join(package, built[0]), target)


setup(ext_modules=[Extension('blockwire._blockwire', sources=[])], cmdclass={'build_ext': CMakeBuild})
