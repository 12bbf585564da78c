import { VideoCameraOutlined } from '@ant-design/icons'
import { cameraApi, listCameraTypeOptions, type Camera } from '../../../api/station/camera'
import type { CrudConfig, CrudField } from '../../../components/crud/types'
import { createElement } from 'react'
import { createTimeField, integerRule, remarkField, stationFields } from '../common/fields'

/**
 * /station/camera (server `cloud/src/station/device/camera.rs`). The app key is write-only: the
 * form never shows it, blank on edit keeps it; the table says whether one is stored.
 */
export function cameraConfig(
  stationId: string | undefined,
  openLive: (row: Camera) => void,
): CrudConfig<Camera> {
  const fields: CrudField<Camera>[] = [
    ...stationFields(stationId !== undefined),
    {
      name: 'cameraType',
      label: 'deviceUi.camera.cameraType',
      type: 'select',
      required: 'deviceUi.camera.cameraTypeRequired',
      loadOptions: listCameraTypeOptions,
      search: true,
    },
    {
      name: 'name',
      label: 'deviceUi.camera.name',
      required: 'deviceUi.camera.nameRequired',
      max: 100,
      search: true,
    },
    {
      name: 'sn',
      label: 'deviceUi.camera.sn',
      required: 'deviceUi.camera.snRequired',
      max: 64,
      search: true,
    },
    {
      name: 'channel',
      label: 'deviceUi.camera.channel',
      type: 'number',
      rules: integerRule(1, 256),
    },
    {
      name: 'verificationCode',
      label: 'deviceUi.camera.verificationCode',
      max: 64,
      hideInTable: true,
    },
    {
      name: 'applicationKey',
      label: 'deviceUi.camera.applicationKey',
      max: 100,
      hideInTable: true,
    },
    {
      name: 'appKey',
      label: 'deviceUi.camera.appKey',
      type: 'password',
      max: 200,
      modes: ['add', 'edit'],
      hideInTable: true,
    },
    {
      name: 'appKeySet',
      label: 'deviceUi.camera.appKey',
      hideInForm: true,
      render: (value) => (value ? '••••••' : ''),
    },
    remarkField,
    createTimeField,
  ]
  return {
    menuCode: 'camera',
    api: cameraApi,
    fields,
    rowActions: [
      {
        key: 'live',
        label: 'deviceUi.camera.live',
        // The menu has no button of its own for it: whoever may view a camera may watch it.
        permission: 'camera_view',
        icon: createElement(VideoCameraOutlined),
        run: (row) => openLive(row),
      },
    ],
  }
}
