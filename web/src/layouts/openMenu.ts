import type { NavigateFunction } from 'react-router-dom'
import type { MenuNode } from '../router/menu'

/** Opens a menu leaf: isOpen 2 in a new window (no tab), otherwise in the console. */
export function openMenu(node: MenuNode, navigate: NavigateFunction): void {
  if (node.newWindow) {
    window.open(node.src ?? node.path, '_blank', 'noopener')
    return
  }
  void navigate(node.path)
}
